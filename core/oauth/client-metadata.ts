import { OAuthError } from './oauth.errors.js';
import { SCOPE_CATALOGUE, parseScope } from './oauth.scopes.js';
import type { ClientMetadata, GrantType } from './oauth.types.js';
import { MAX_URI_LENGTH, parseStrictHttpUri } from './uri-rules.js';

export const MAX_REDIRECT_URIS = 10;
const MAX_TEXT = 255;
const GRANT_TYPES: readonly GrantType[] = ['authorization_code', 'refresh_token'];
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

const metadataError = (description: string) => new OAuthError('invalid_client_metadata', description);

/**
 * Validates a registration body (RFC 7591 2, as the spec narrows it: public clients, the code
 * flow only). Unknown members are ignored, as RFC 7591 asks; every refusal names its field.
 * Used for POST /oauth/register and, whole, for PUT /oauth/register/{client_id} (RFC 7592 2.2).
 */
export function validateClientMetadata(body: unknown): ClientMetadata {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw metadataError('The body must be a JSON object of client metadata');
  const input = body as Record<string, unknown>;
  const redirectUris = validateRedirectUris(input.redirect_uris);
  const clientName = text(input, 'client_name', true);
  if (!clientName) throw metadataError('client_name is required');

  const scope = input.scope === undefined ? undefined : text(input, 'scope', false, 4096);
  const scopes = scope === undefined ? [...SCOPE_CATALOGUE] : parseScope(scope ?? '');
  if (!scopes) throw metadataError(`scope must be space-separated scopes of: ${SCOPE_CATALOGUE.join(' ')}`);

  return {
    clientName,
    redirectUris,
    grantTypes: validateGrantTypes(input.grant_types),
    scopes,
    clientUri: httpsUri(input, 'client_uri'),
    logoUri: httpsUri(input, 'logo_uri'),
    softwareId: text(input, 'software_id', false),
    softwareVersion: text(input, 'software_version', false),
    ...validateFixedValues(input),
  };
}

function validateRedirectUris(value: unknown): string[] {
  if (!Array.isArray(value) || value.length === 0)
    throw new OAuthError('invalid_redirect_uri', 'redirect_uris is required: an array of 1 to 10 URIs');
  if (value.length > MAX_REDIRECT_URIS)
    throw new OAuthError('invalid_redirect_uri', `redirect_uris holds at most ${MAX_REDIRECT_URIS} URIs`);
  for (const uri of value) {
    if (typeof uri !== 'string' || !isAllowedRedirectUri(uri))
      throw new OAuthError(
        'invalid_redirect_uri',
        `${JSON.stringify(uri).slice(0, 100)} is not a redirect URI: an absolute https URI (or http on 127.0.0.1, [::1] or localhost) with a host, no fragment, no user information, and no spaces, control characters or other characters outside RFC 3986`,
      );
  }
  return [...new Set(value as string[])];
}

/**
 * https anywhere, or http on a loopback host (any port, RFC 8252 7.3); parsed strictly (see
 * parseStrictHttpUri): absolute, a host, no fragment, and nothing a parser would drop or rewrite,
 * so the address registered is the address a browser is sent to.
 */
export function isAllowedRedirectUri(uri: string): boolean {
  const url = parseStrictHttpUri(uri);
  if (!url) return false;
  return url.protocol === 'https:' || LOOPBACK_HOSTS.has(url.hostname);
}

function validateGrantTypes(value: unknown): GrantType[] {
  if (value === undefined) return [...GRANT_TYPES];
  if (!Array.isArray(value) || value.some((type) => !GRANT_TYPES.includes(type as GrantType)))
    throw metadataError('grant_types may hold only authorization_code and refresh_token');
  // A refresh token only ever comes from a code exchange: the code grant is always needed.
  if (!value.includes('authorization_code')) throw metadataError('grant_types must include authorization_code');
  return GRANT_TYPES.filter((type) => value.includes(type));
}

/** Fields with one allowed value: present or not, they must say what the server does. */
function validateFixedValues(input: Record<string, unknown>): Record<string, never> {
  const responseTypes = input.response_types;
  if (
    responseTypes !== undefined &&
    !(Array.isArray(responseTypes) && responseTypes.length === 1 && responseTypes[0] === 'code')
  )
    throw metadataError("response_types must be ['code']");
  const method = input.token_endpoint_auth_method;
  if (method !== undefined && method !== 'none')
    throw metadataError('token_endpoint_auth_method must be none: only public clients (PKCE) are supported');
  return {};
}

function text(input: Record<string, unknown>, field: string, required: boolean, max = MAX_TEXT): string | null {
  const value = input[field];
  if (value === undefined || value === null) {
    if (required) throw metadataError(`${field} is required`);
    return null;
  }
  if (typeof value !== 'string' || value.trim() === '' || value.length > max)
    throw metadataError(`${field} must be a non-empty string of at most ${max} characters`);
  return value;
}

function httpsUri(input: Record<string, unknown>, field: string): string | null {
  const value = text(input, field, false, MAX_URI_LENGTH);
  if (value === null) return null;
  if (!URL.canParse(value) || new URL(value).protocol !== 'https:')
    throw metadataError(`${field} must be an https URL`);
  return value;
}
