import type { Knex } from 'knex';
import type { PageQuery } from './list-query.js';

/**
 * Keyset pagination on a time column with the id as tie-breaker, for lists ordered by
 * something other than creation (a thread by its latest email, a conversation oldest first).
 * The cursor is an item id; `cursorTime` is that item's time (read by the caller; null when
 * the cursor names no item of this list, which answers an empty page).
 */
export async function pageByTime<Row>(
  query: Knex.QueryBuilder,
  page: PageQuery,
  options: { column: string; cursorTime: Date | null | undefined; newestFirst: boolean },
): Promise<{ rows: Row[]; hasMore: boolean }> {
  const limit = page.limit ?? 20;
  const cursorId = page.after ?? page.before;
  if (cursorId) {
    if (!options.cursorTime) return { rows: [], hasMore: false };
    const forward = Boolean(page.after);
    const op = forward === options.newestFirst ? '<' : '>';
    const at = options.cursorTime;
    query.where((q) =>
      q.where(options.column, op, at).orWhere((same) => same.where(options.column, at).where('id', op, cursorId)),
    );
  }
  // Walking back (before) reads the other way, then turns the page round.
  const direction = (page.before ? !options.newestFirst : options.newestFirst) ? 'desc' : 'asc';
  const rows = (await query
    .orderBy(options.column, direction)
    .orderBy('id', direction)
    .limit(limit + 1)) as Row[];
  const pageRows = rows.slice(0, limit);
  return { rows: page.before ? pageRows.reverse() : pageRows, hasMore: rows.length > limit };
}
