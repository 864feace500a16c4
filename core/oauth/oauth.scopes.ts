/**
 * The scope catalogue: every scope a route of the API declares (x-svc-scope), plus the ones the
 * spec names for routes not built yet (ai:use). core/ cannot read the route table (calls go
 * api -> core), so the list is written here and test/api/oauth/metadata.test.ts checks that every
 * route's scope is in it: a new route with a new scope fails that test until it is added.
 */
export const SCOPE_CATALOGUE = [
  'ai:use',
  'automations:read',
  'automations:write',
  'billing:read',
  'broadcasts:read',
  'broadcasts:write',
  'contacts:read',
  'domains:read',
  'emails:read',
  'emails:send',
  'events:read',
  'events:send',
  'events:write',
  'inboxes:read',
  'inboxes:write',
  'team:read',
  'team:write',
  'templates:read',
] as const;

const KNOWN: ReadonlySet<string> = new Set(SCOPE_CATALOGUE);

/** A space-separated scope string as a list (RFC 6749 3.3); null when it names an unknown scope or none. */
export function parseScope(value: string): string[] | null {
  const scopes = [...new Set(value.split(' ').filter((part) => part !== ''))];
  if (scopes.length === 0 || scopes.some((scope) => !KNOWN.has(scope))) return null;
  return scopes;
}

export function isSubset(scopes: readonly string[], of: readonly string[]): boolean {
  const allowed = new Set(of);
  return scopes.every((scope) => allowed.has(scope));
}

export function formatScope(scopes: readonly string[]): string {
  return scopes.join(' ');
}
