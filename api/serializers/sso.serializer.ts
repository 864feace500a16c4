import { ssoStatus, type SsoConfiguration, type SsoSignIn, type SsoSummary } from '../../core/sso/sso.types.js';
import type { SsoChange } from '../../core/sso/sso.service.js';

const iso = (value: Date | null) => (value ? value.toISOString() : null);

/** GET /team/sso: the team's settings, never the client secret. */
export function serializeSsoConfiguration(config: SsoConfiguration, redirectUri: string) {
  return {
    object: 'sso_configuration' as const,
    status: ssoStatus(config),
    issuer: config.issuer,
    client_id: config.clientId,
    domains: [...config.domains],
    /** In use: people on the covered domains are sent to the provider (also while `failing`). */
    active: config.active,
    enforced: config.enforced,
    redirect_uri: redirectUri,
    tested_at: iso(config.testedAt),
    activated_at: iso(config.activatedAt),
    last_error: config.lastError,
    last_sign_in_at: iso(config.lastSignInAt),
    created_at: config.createdAt.toISOString(),
    updated_at: config.updatedAt.toISOString(),
  };
}

/** A PUT or PATCH answer: the configuration, with how many password sessions enforcement ended. */
export function serializeSsoChange(change: SsoChange, redirectUri: string) {
  return {
    ...serializeSsoConfiguration(change.configuration, redirectUri),
    password_sessions_ended: change.passwordSessionsEnded,
  };
}

/** The team object's `sso` (spec): { status, issuer, client_id, enforced, domains } or null. */
export function serializeSsoSummary(summary: SsoSummary | null) {
  if (!summary) return null;
  const { status, issuer, clientId, enforced, domains } = summary;
  return { status, issuer, client_id: clientId, enforced, domains: [...domains] };
}

export function serializeSsoSignIn(signIn: SsoSignIn) {
  return {
    object: 'sso_sign_in' as const,
    id: signIn.id,
    user_id: signIn.userId,
    email: signIn.email,
    name: signIn.name,
    outcome: signIn.outcome,
    error: signIn.error,
    created_at: signIn.createdAt.toISOString(),
  };
}
