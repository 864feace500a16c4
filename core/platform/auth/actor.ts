/** Who is making a call. Services take it where a rule depends on the caller. */
export type ApiKeyPermission = 'full_access' | 'sending_access';

export type Actor =
  | { kind: 'api_key'; teamId: string; apiKeyId: string; permission: ApiKeyPermission; domainId: string | null }
  /** The `mailroom` command run by the operator on the host. */
  | { kind: 'operator' };

/** A full_access key acts as a team admin; sending keys never do. */
export function isTeamAdmin(actor: Actor): boolean {
  return actor.kind === 'operator' || actor.permission === 'full_access';
}
