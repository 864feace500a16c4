/**
 * Per-team OpenID Connect single sign-on: the team's provider (issuer, client), the e-mail
 * domains it covers, and whether it is in use (active) and required (enforced).
 */
export type SsoStatus = 'configured' | 'tested' | 'active' | 'failing';

export type SsoConfiguration = {
  id: string;
  teamId: string;
  issuer: string;
  clientId: string;
  /** Lower-cased, sorted. */
  domains: string[];
  active: boolean;
  enforced: boolean;
  /** The last successful test round trip since the provider settings last changed. */
  testedAt: Date | null;
  activatedAt: Date | null;
  /** The last failure talking to the provider (discovery, keys, token endpoint, a bad ID token). */
  lastError: string | null;
  lastErrorAt: Date | null;
  lastSignInAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
};

/**
 * Read from the stamps, never stored: a failure since the last success is `failing` (an active
 * configuration keeps sending people to the provider meanwhile: the failure may pass), else
 * `active` when in use, `tested` after a successful round trip, `configured` before one.
 */
export function ssoStatus(config: Pick<SsoConfiguration, 'active' | 'testedAt' | 'lastError'>): SsoStatus {
  if (config.lastError !== null) return 'failing';
  if (config.active) return 'active';
  return config.testedAt ? 'tested' : 'configured';
}

/** What the team object shows (spec: `sso` is { status, issuer, client_id, enforced, domains } or null). */
export type SsoSummary = { status: SsoStatus; issuer: string; clientId: string; enforced: boolean; domains: string[] };

export type SsoPurpose = 'sign_in' | 'test';

/** One round trip in progress, as stored (sso_flows). */
export type SsoFlow = {
  stateHash: string;
  teamId: string;
  purpose: SsoPurpose;
  nonce: string;
  codeVerifier: string;
  userId: string | null;
  expiresAt: Date;
  createdAt: Date;
};

export const SSO_FLOW_LIFETIME_MS = 10 * 60_000;
/** Sign-in records are kept this long (the audit log keeps its own entries). */
export const SSO_SIGN_IN_RETENTION_MS = 90 * 86_400_000;

/** Why a callback failed: the `sso_error` (or `reason`) query parameter the browser lands with. */
export const SSO_ERRORS = [
  'state_invalid',
  'token_invalid',
  'email_unverified',
  'domain_not_covered',
  'provider_error',
  'not_configured',
] as const;
export type SsoErrorCode = (typeof SSO_ERRORS)[number];

/** A refusal of the callback, carried to the redirect (never a JSON error: a browser is there). */
export class SsoFlowError extends Error {
  constructor(
    readonly code: SsoErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export type SsoSignInOutcome = 'signed_in' | 'joined' | 'tested' | 'failed';

export type SsoSignIn = {
  id: string;
  teamId: string;
  userId: string | null;
  email: string | null;
  name: string | null;
  outcome: SsoSignInOutcome;
  error: SsoErrorCode | null;
  createdAt: Date;
};

/** The claims a sign-in uses, from a validated ID token. */
export type SsoIdentity = { subject: string; email: string; emailVerified: boolean; name: string | null };
