import type { Knex } from 'knex';
import type { PageQuery } from './list-query.js';

/**
 * Oldest-first keyset pagination on a time-ordered id column (UUIDv7), for timelines read in the
 * order things happened: `after` gives the items that came after a cursor (the next page),
 * `before` those that came before it (the previous page, still oldest first). One index range
 * per page, like paginateNewestFirst.
 */
export async function paginateOldestFirst<Row>(
  query: Knex.QueryBuilder,
  page: PageQuery,
  column = 'id',
  defaultLimit = 20,
): Promise<{ rows: Row[]; hasMore: boolean }> {
  const limit = page.limit ?? defaultLimit;
  if (page.before) {
    const rows = (await query
      .where(column, '<', page.before)
      .orderBy(column, 'desc')
      .limit(limit + 1)) as Row[];
    return { rows: rows.slice(0, limit).reverse(), hasMore: rows.length > limit };
  }
  if (page.after) query.where(column, '>', page.after);
  const rows = (await query.orderBy(column, 'asc').limit(limit + 1)) as Row[];
  return { rows: rows.slice(0, limit), hasMore: rows.length > limit };
}
