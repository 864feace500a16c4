import { z } from 'zod';

/** The response shapes of a domain, shared by the domain routes and auto-configure (OpenAPI). */
const record = z.object({
  record: z.string(),
  name: z.string(),
  type: z.string(),
  ttl: z.string(),
  status: z.string(),
  value: z.string(),
  priority: z.number().optional(),
  /** When verification last looked the record up; null before its first check. */
  last_checked_at: z.string().nullable(),
});

export const domainItem = z
  .object({
    object: z.literal('domain'),
    id: z.string(),
    name: z.string(),
    status: z.string(),
    created_at: z.string(),
    region: z.string(),
  })
  .passthrough();

export const domainDetail = domainItem.extend({
  /** True once auto-configure publishes its records by DNS UPDATE. */
  managed: z.boolean(),
  records: z.array(record),
});
