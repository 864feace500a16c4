import type { Knex } from 'knex';
import { z } from 'zod';
import { isUuid } from '../../../lib/ids.js';

/**
 * The list conventions every list route shares: limit 1..100 (default 20), after/before cursors
 * that are item ids and exclude each other, and the { object: 'list', has_more, data } envelope.
 */
const cursor = z
  .string()
  .refine(isUuid, 'must be the id of an item in this list')
  .transform((value) => value.toLowerCase());

export const pageQueryShape = {
  limit: z
    .string()
    .regex(/^\d+$/, 'must be an integer from 1 to 100')
    .transform(Number)
    .pipe(z.number().int().min(1, 'must be an integer from 1 to 100').max(100, 'must be an integer from 1 to 100'))
    .optional(),
  after: cursor.optional(),
  before: cursor.optional(),
};

/** Adds the after/before exclusivity rule to a list query schema. */
export function withPageRules<T extends z.ZodObject>(schema: T) {
  return schema.superRefine((value, ctx) => {
    const page = value as { after?: string; before?: string };
    if (page.after && page.before)
      ctx.addIssue({ code: 'custom', path: ['before'], message: 'after and before cannot be used together' });
  });
}

/** A search value: case-insensitive substring; blank refused. */
export function searchParam(max = 200) {
  return z
    .string()
    .refine((value) => value.trim().length > 0, 'must not be blank')
    .pipe(z.string().max(max, `must be at most ${max} characters`));
}

export type PageQuery = { limit?: number; after?: string; before?: string };
export type Page<T> = { object: 'list'; has_more: boolean; data: T[] };

/**
 * Newest-first keyset pagination on a time-ordered id column (UUIDv7), so a page costs one
 * index range scan however deep the caller walks.
 */
export async function paginateNewestFirst<Row>(
  query: Knex.QueryBuilder,
  page: PageQuery,
  column = 'id',
): Promise<{ rows: Row[]; hasMore: boolean }> {
  const limit = page.limit ?? 20;
  if (page.before) {
    const rows = (await query
      .where(column, '>', page.before)
      .orderBy(column, 'asc')
      .limit(limit + 1)) as Row[];
    return { rows: rows.slice(0, limit).reverse(), hasMore: rows.length > limit };
  }
  if (page.after) query.where(column, '<', page.after);
  const rows = (await query.orderBy(column, 'desc').limit(limit + 1)) as Row[];
  return { rows: rows.slice(0, limit), hasMore: rows.length > limit };
}

export function listEnvelope<T>(data: T[], hasMore: boolean): Page<T> {
  return { object: 'list', has_more: hasMore, data };
}
