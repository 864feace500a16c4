import { z } from 'zod';
import { pageQueryShape, searchParam, withPageRules } from '../pagination/list-query.js';

/** An ISO 8601 instant: a date alone is refused (the spec wants instants for log ranges). */
const instant = z
  .string()
  .refine((value) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/.test(value) && !Number.isNaN(Date.parse(value)), 'must be an ISO 8601 instant with a time and zone, e.g. 2026-01-31T00:00:00Z')
  .transform((value) => new Date(value));

export const listLogsQuerySchema = withPageRules(
  z
    .object({
      ...pageQueryShape,
      status: z.string().regex(/^\d{3}$/, 'must be an HTTP status code such as 200').transform(Number).optional(),
      source: z.string().min(1).max(64).optional(),
      exclude_source: z.string().min(1).max(64).optional(),
      user_agent: z.string().min(1).max(512).optional(),
      search: searchParam(200).optional(),
      start_date: instant.optional(),
      end_date: instant.optional(),
    })
    .strict(),
).superRefine((value, ctx) => {
  if (value.start_date && value.end_date && value.end_date < value.start_date) {
    ctx.addIssue({ code: 'custom', path: ['end_date'], message: 'end_date is before start_date' });
  }
});

export type ListLogsQuery = z.infer<typeof listLogsQuerySchema>;
