import type { ApiKey } from '../api-keys/api-key.types.js';
import type { Team } from '../teams/team.types.js';

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
};

/** A full_access key acts as a team admin; sending keys and OAuth tokens never do. */
export function isTeamAdmin(caller: Caller): boolean {
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
