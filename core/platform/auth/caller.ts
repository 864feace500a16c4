import type { ApiKey } from '../api-keys/api-key.types.js';
import type { Team, TeamMember } from '../teams/team.types.js';

/**
 * Who makes a call: the one type every process hands to the services that have a rule about
 * the caller. Today the credential is an API key; OAuth tokens (a later issue) arrive as a key
 * of the grant's permission with `scopes` set, and the pipeline checks each route's scope.
 */
export type Caller = {
  team: Team;
  apiKey: ApiKey;
  /** OAuth scopes the credential carries; null for an API key (its permission decides alone). */
  scopes: readonly string[] | null;
  /**
   * Set when a signed-in person calls from the dashboard (cookie session): who, and their role in
   * the team. `apiKey` then stands for the session (id = session id, full_access).
   */
  member?: { userId: string; role: TeamMember['role']; email?: string };
  /** Set for an OAuth access token: the app (client) that holds the grant, for the audit log. */
  oauth?: { clientId: string };
};

/**
 * The protected resource a credential is presented to (its RFC 8707 audience): the REST API
 * (either base, and SMTP submission, which is POST /emails by another door) or the MCP server at
 * /mcp. An OAuth access token works only on the one its grant was issued for; an API key only on
 * the REST API (the /mcp route refuses keys itself).
 */
export type Audience = 'api' | 'mcp';

/**
 * Who may do what a team admin may (rename the team): a signed-in owner or admin; a full_access
 * key, which only an admin can hold; never a sending key, an OAuth token or a plain member.
 */
export function isTeamAdmin(caller: Caller): boolean {
  if (caller.member) return caller.member.role === 'owner' || caller.member.role === 'admin';
  return caller.scopes === null && caller.apiKey.permission === 'full_access';
}

/**
 * Whether the credential may use a route that needs `scope` (API keys: their permission decides).
 * A route without a scope is for keys only: an OAuth token never reaches it, whatever its scopes
 * (spec: "full_access means only a full_access key (or the listed scope for an OAuth token)";
 * team members, key management, logs and /oauth/grants have no scope).
 */
export function hasScope(caller: Caller, scope: string | null): boolean {
  if (caller.scopes === null) return true;
  return scope !== null && caller.scopes.includes(scope);
}
