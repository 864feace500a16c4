import type { Caller } from '../auth/caller.js';
import type { AuditActor } from './audit.types.js';

/**
 * Who a caller is, as the audit log names them: the signed-in person behind a dashboard session,
 * the OAuth app behind an access token, or the API key by its name (never its secret).
 */
export function auditActorOf(caller: Caller): AuditActor {
  if (caller.member) return { type: 'user', id: caller.member.userId, name: caller.member.email ?? null };
  if (caller.oauth) return { type: 'oauth_app', id: caller.oauth.clientId, name: caller.apiKey.name };
  return { type: 'api_key', id: caller.apiKey.id, name: caller.apiKey.name };
}

/** A signed-in person (session routes), or an operator acting through the admin API. */
export function personActor(user: { id: string; email: string }, operator = false): AuditActor {
  return { type: operator ? 'operator' : 'user', id: user.id, name: user.email };
}
