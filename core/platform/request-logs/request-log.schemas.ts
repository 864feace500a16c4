import { z } from 'zod';
import { isUuid } from '../../../lib/ids.js';
import { endNotBeforeStart, instantParam } from '../../shared/pagination/date-filters.js';
import { pageQueryShape, searchParam, withPageRules } from '../../shared/pagination/list-query.js';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
const API_V1 = '/api/v1';

/**
 * `status` is an exact code (404) or a class (4xx): either way a range of codes, so the query
 * is one BETWEEN.
 */
const statusParam = z
  .string()
  .regex(/^(\d{3}|[1-5][xX]{2})$/, 'must be an HTTP status code such as 404, or a class such as 4xx')
  .transform((value) => {
    if (/x/i.test(value)) {
      const from = Number(value[0]) * 100;
      return { from, to: from + 99 };
    }
    return { from: Number(value), to: Number(value) };
  });

/**
 * `path` is a prefix of the logged endpoint, which is stored without the /api/v1 base (both
 * bases are one API): a prefix given with the base is read without it.
 */
const pathParam = z
  .string()
  .max(2048, 'must be at most 2048 characters')
  .refine((value) => value.startsWith('/'), 'must be a path starting with /, such as /emails')
  .transform((value) =>
    value === API_V1 || value.startsWith(`${API_V1}/`) ? value.slice(API_V1.length) || '/' : value,
  );

export const listLogsQuerySchema = withPageRules(
  z
    .object({
      ...pageQueryShape,
      status: statusParam.optional(),
      method: z
        .string()
        .transform((value) => value.toUpperCase())
        .pipe(z.enum(METHODS, { message: `must be one of ${METHODS.join(', ')}` }))
        .optional(),
      path: pathParam.optional(),
      api_key_id: z
        .string()
        .refine(isUuid, 'must be an API key id (a UUID)')
        .transform((value) => value.toLowerCase())
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
