import type { SecretBox } from '../../lib/crypto/secret-box.js';
import { UnprocessableValidationError } from '../../lib/errors.js';
import { isLoopbackIssuer, type ProviderSettings } from './sso-provider.client.js';
import type { SsoRepository } from './sso.repository.js';
import type { SsoConfiguration } from './sso.types.js';

const issuerError = (message: string) =>
  new UnprocessableValidationError(`issuer ${message}`, { errors: [{ path: 'issuer', message }] });

/**
 * An issuer as OpenID Connect Discovery takes it: an absolute https URL without query or
 * fragment (plain http only on loopback, see isLoopbackIssuer). Kept exactly as given, trailing
 * slash included: the provider's discovery document must name the same string.
 */
export function checkIssuer(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw issuerError('must be an absolute URL (https://...)');
  }
  if (url.search || url.hash || url.username || url.password)
    throw issuerError('must not carry a query, fragment or credentials');
  if (url.protocol === 'https:') return value;
  if (url.protocol === 'http:' && isLoopbackIssuer(url)) return value;
  throw issuerError('must be an https URL');
}

/** The settings openid-client needs, the secret opened from its sealed column. */
export async function providerSettings(
  box: SecretBox,
  repository: SsoRepository,
  config: SsoConfiguration,
): Promise<ProviderSettings> {
  const sealed = await repository.sealedSecret(config.teamId);
  if (!sealed) throw new Error(`the single sign-on of team ${config.teamId} has no secret`);
  return { issuer: config.issuer, clientId: config.clientId, clientSecret: box.open(sealed) };
}
