import { z } from 'zod';
import type { RouteContext } from '../../route.js';

/** Response shapes of the audience routes, for OpenAPI and the route-table tests. */
export const contactParam = z.string().min(1).max(320).describe('Contact id or e-mail address');
export const idParam = (what: string) => z.string().min(1).max(64).describe(`${what} id`);

export const contactItemSchema = z.object({
  id: z.string(),
  email: z.string(),
  first_name: z.string().nullable(),
  last_name: z.string().nullable(),
  created_at: z.string(),
  unsubscribed: z.boolean(),
});
export const contactSchema = contactItemSchema.extend({
  object: z.literal('contact'),
  properties: z.record(z.string(), z.union([z.string(), z.number()])),
});
/** Contact lists have no has_more (spec): walk with `after` until an empty page. */
export const contactListSchema = z.object({ object: z.literal('list'), data: z.array(contactItemSchema) });
/** DELETE of a contact: the spec's { object, id, deleted } and the SDK's `contact` beside them. */
export const contactDeletedSchema = z.object({
  object: z.literal('contact'),
  id: z.string(),
  contact: z.string(),
  deleted: z.literal(true),
});
export const refSchema = (object: string) => z.object({ object: z.literal(object), id: z.string() });

/** Where a consent change made through the API came from. */
export const apiOrigin = (ctx: Pick<RouteContext<unknown, unknown, unknown>, 'clientIp' | 'headers'>) => ({
  source: 'api' as const,
  ip: ctx.clientIp,
  userAgent: (ctx.headers['user-agent'] as string | undefined) ?? null,
});
