import { createHash } from 'node:crypto';
import * as oidc from 'openid-client';
import type { Clock } from '../../lib/clock.js';
import { SsoFlowError, type SsoIdentity } from './sso.types.js';

/** The provider settings of one team, the secret opened. */
export type ProviderSettings = { issuer: string; clientId: string; clientSecret: string };

/** What a round trip's start hands back: where to send the browser, and what to keep for the callback. */
export type AuthorizationStart = { url: string; state: string; nonce: string; codeVerifier: string };

/** How long discovery metadata and the provider's keys are kept before being fetched again. */
export const PROVIDER_CACHE_MS = 10 * 60_000;

const SCOPE = 'openid email profile';

/** Codes openid-client (oauth4webapi) gives an ID token it refuses: a claim, a time, a signature, a key. */
const TOKEN_FAILURES = new Set([
  'OAUTH_JWT_CLAIM_COMPARISON_FAILED',
  'OAUTH_JWT_TIMESTAMP_CHECK_FAILED',
  'OAUTH_INVALID_RESPONSE',
  'OAUTH_KEY_SELECTION_FAILED',
]);

/**
 * openid-client refuses plain-http issuers. A loopback issuer (a provider on this machine, the
 * tests' oidc-provider) is the one exception: nothing crosses a network there. Anything else
 * must be https.
 */
export function isLoopbackIssuer(issuer: URL): boolean {
  const host = issuer.hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * The team's OpenID provider through openid-client: discovery and the provider's keys (JWKS)
 * are fetched once and kept PROVIDER_CACHE_MS per issuer and client (openid-client's
 * Configuration holds both), the authorization code flow with PKCE (S256), state and nonce,
 * and the ID token checked: issuer, audience, expiry, nonce and its signature (non-repudiation
 * checks on: the token endpoint's TLS alone is not taken as proof).
 */
export class SsoProviderClient {
  private readonly cache = new Map<string, { config: Promise<oidc.Configuration>; until: number }>();

  constructor(private readonly deps: { clock: Clock; redirectUri: () => string }) {}

  async start(settings: ProviderSettings, loginHint: string | null): Promise<AuthorizationStart> {
    const config = await this.configuration(settings);
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: this.deps.redirectUri(),
      scope: SCOPE,
      code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state,
      nonce,
      ...(loginHint ? { login_hint: loginHint } : {}),
    });
    return { url: url.href, state, nonce, codeVerifier };
  }

  /** Exchanges the code and validates the ID token; refusals are SsoFlowErrors with their code. */
  async finish(
    settings: ProviderSettings,
    callback: URLSearchParams,
    checks: { state: string; nonce: string; codeVerifier: string },
  ): Promise<SsoIdentity> {
    const config = await this.configuration(settings);
    const current = new URL(this.deps.redirectUri());
    current.search = callback.toString();
    const tokens = await oidc
      .authorizationCodeGrant(config, current, {
        pkceCodeVerifier: checks.codeVerifier,
        expectedState: checks.state,
        expectedNonce: checks.nonce,
        idTokenExpected: true,
      })
      .catch((err: unknown) => {
        throw classify(err);
      });
    const claims = tokens.claims();
    if (!claims) throw new SsoFlowError('token_invalid', 'The provider answered without an ID token');
    const email = typeof claims.email === 'string' ? claims.email.trim().toLowerCase() : '';
    if (!email) throw new SsoFlowError('token_invalid', 'The ID token carries no email claim (scope email)');
    return {
      subject: claims.sub,
      email,
      // Only a literal true: a string "true" or a missing claim is not a verified address. Entra
      // ID puts no email_verified in its ID tokens; its optional claim xms_edov (the address's
      // domain owner verified it) says the same thing and is taken instead.
      emailVerified: claims.email_verified === true || claims.xms_edov === true,
      name: typeof claims.name === 'string' && claims.name.trim() ? claims.name.trim().slice(0, 255) : null,
    };
  }

  /** Fetches (or finds cached) the provider's discovery metadata: throws the SsoFlowError of a failure. */
  async probe(settings: ProviderSettings): Promise<void> {
    await this.configuration(settings);
  }

  /** Drops what is cached for an issuer (its settings changed or were removed). */
  forget(issuer: string): void {
    for (const key of this.cache.keys()) if (key.startsWith(`${issuer}\n`)) this.cache.delete(key);
  }

  private configuration(settings: ProviderSettings): Promise<oidc.Configuration> {
    const now = this.deps.clock.now().getTime();
    const secretHash = createHash('sha256').update(settings.clientSecret).digest('hex');
    const key = `${settings.issuer}\n${settings.clientId}\n${secretHash}`;
    const cached = this.cache.get(key);
    if (cached && cached.until > now) return cached.config;
    const config = this.discover(settings);
    this.cache.set(key, { config, until: now + PROVIDER_CACHE_MS });
    // A failed discovery is not kept: the next attempt asks the provider again.
    config.catch(() => this.cache.delete(key));
    return config;
  }

  private async discover(settings: ProviderSettings): Promise<oidc.Configuration> {
    const issuer = new URL(settings.issuer);
    const insecure = issuer.protocol === 'http:' && isLoopbackIssuer(issuer);
    try {
      const config = await oidc.discovery(
        issuer,
        settings.clientId,
        undefined,
        oidc.ClientSecretBasic(settings.clientSecret),
        { timeout: 10, ...(insecure ? { execute: [oidc.allowInsecureRequests] } : {}) },
      );
      oidc.enableNonRepudiationChecks(config);
      return config;
    } catch (err) {
      throw new SsoFlowError('provider_error', `Discovery at ${issuer.origin} failed: ${describe(err)}`);
    }
  }
}

function classify(err: unknown): SsoFlowError {
  if (err instanceof SsoFlowError) return err;
  if (err instanceof oidc.AuthorizationResponseError)
    return new SsoFlowError('provider_error', `The provider refused the sign-in: ${err.error}`);
  if (err instanceof oidc.ResponseBodyError)
    return new SsoFlowError('provider_error', `The token endpoint refused the code: ${err.error}`);
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && TOKEN_FAILURES.has(code))
    return new SsoFlowError('token_invalid', `The ID token was refused: ${describe(err)}`);
  return new SsoFlowError('provider_error', `The provider could not be reached: ${describe(err)}`);
}

/** A short, secret-free reason for last_error and the logs. */
function describe(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const cause = err instanceof Error && err.cause instanceof Error ? ` (${err.cause.message})` : '';
  return `${message}${cause}`.slice(0, 400);
}
