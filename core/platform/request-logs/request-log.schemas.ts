import { z } from 'zod';
import { endNotBeforeStart, instantParam } from '../../shared/pagination/date-filters.js';
import { pageQueryShape, searchParam, withPageRules } from '../../shared/pagination/list-query.js';

export const listLogsQuerySchema = withPageRules(
  z
    .object({
      ...pageQueryShape,
      status: z
        .string()
        .regex(/^\d{3}$/, 'must be an HTTP status code such as 200')
        .transform(Number)
        .optional(),
      source: z.string().min(1).max(64).optional(),
      exclude_source: z.string().min(1).max(64).optional(),
      user_agent: z.string().min(1).max(512).optional(),
      search: searchParam(200).optional(),
      start_date: instantParam().optional(),
      end_date: instantParam().optional(),
    })
    .strict(),
).superRefine(endNotBeforeStart);

export type ListLogsQuery = z.infer<typeof listLogsQuerySchema>;
