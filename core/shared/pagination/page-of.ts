import type { PageQuery } from './list-query.js';

/**
 * Pages an in-memory, newest-first list of items with ids by the usual after/before cursors:
 * for short lists computed per request (a contact's segments and topics), not for tables.
 */
export function pageOf<T extends { id: string }>(items: T[], page: PageQuery): { rows: T[]; hasMore: boolean } {
  const limit = page.limit ?? 20;
  if (page.before) {
    const older = items.filter((item) => item.id > page.before!);
    const rows = older.slice(Math.max(0, older.length - limit));
    return { rows, hasMore: older.length > limit };
  }
  const rest = page.after ? items.filter((item) => item.id < page.after!) : items;
  return { rows: rest.slice(0, limit), hasMore: rest.length > limit };
}
