import type { Knex } from 'knex';

/** A query that must not count as a change (the once-a-minute last_used_at refresh). */
export const NOT_A_CHANGE = { notAChange: true } as const;

type QueryEvent = { sql?: string; queryContext?: { notAChange?: boolean } };

const WRITE =
  /^\s*(?:insert\s+(?:ignore\s+)?into|update|delete\s+from|replace\s+into|truncate(?:\s+table)?|drop\s+table(?:\s+if\s+exists)?|alter\s+table)\s+[`"]?(\w+)/i;

/**
 * Calls `onWrite` whenever this process writes to one of `tables` through `knex`, by any path:
 * services, jobs, the command line in-process, or a test's direct update. It fires when the
 * statement is sent and again when it returns, so a reader that slipped in between cannot
 * keep the old row (see LookupCache). The watch is on the database handle, not on the write
 * methods, so a write path added later cannot forget to invalidate.
 *
 * A write inside a transaction is seen when the statement runs, before COMMIT; a concurrent
 * reader may still read the old committed row and keep it until the cache's TTL ends. The
 * writes that revoke access (key revoke and suspend, team risk state and plan) are autocommit.
 */
export function watchWrites(knex: Knex, tables: readonly string[], onWrite: () => void): void {
  const watched = new Set(tables.map((t) => t.toLowerCase()));
  const check = (query: QueryEvent) => {
    if (!query?.sql || query.queryContext?.notAChange) return;
    const table = WRITE.exec(query.sql)?.[1];
    if (table && watched.has(table.toLowerCase())) onWrite();
  };
  knex.on('query', check);
  knex.on('query-response', (_response: unknown, query: QueryEvent) => check(query));
  knex.on('query-error', (_err: unknown, query: QueryEvent) => check(query));
}
