import { z } from 'zod';
import { isDomainName } from '../../../app/operator/queue-filter.js';
import { NotFoundError } from '../../../lib/errors.js';
import { defineRoute } from '../../route.js';

const tag = 'admin';
const count = z.number().int().nonnegative();

const domainName = (description: string) =>
  z
    .string()
    .max(253)
    .refine(isDomainName, 'must be a recipient domain name such as example.com')
    .transform((value) => value.toLowerCase())
    .describe(description);

const holdShape = z.object({
  object: z.literal('destination_hold'),
  domain: z.string(),
  reason: z.string().nullable(),
  held_by: z.string().nullable().describe("the operator's address who placed it"),
  created_at: z.string().describe('ISO 8601 timestamp (UTC)'),
});

const serialize = (hold: { domain: string; reason: string | null; heldBy: string | null; createdAt: Date }) => ({
  object: 'destination_hold' as const,
  domain: hold.domain,
  reason: hold.reason,
  held_by: hold.heldBy,
  created_at: hold.createdAt.toISOString(),
});

/**
 * Standing holds on a destination: unlike POST /admin/queue/hold (what waits now), a hold on a
 * domain also keeps the mail accepted after it waiting, until it is released. `mailroom queue
 * hold-domain` and `release-domain` do the same.
 */
export const adminDestinationHoldRoutes = [
  defineRoute({
    method: 'GET',
    path: '/admin/queue/holds',
    operationId: 'adminListDestinationHolds',
    summary: 'Recipient domains on hold: their mail waits until released',
    tag,
    permission: 'operator',
    scope: null,
    responses: {
      200: {
        description: 'The standing holds, by domain',
        schema: z.object({ object: z.literal('list'), has_more: z.literal(false), data: z.array(holdShape) }),
      },
    },
    handler: async ({ services }) => ({
      status: 200,
      body: { object: 'list', has_more: false, data: (await services.deliveries.destinationHolds()).map(serialize) },
    }),
  }),
  defineRoute({
    method: 'POST',
    path: '/admin/queue/holds',
    operationId: 'adminHoldDestination',
    summary: 'Hold a recipient domain: what waits for it now and what is accepted later stays held until released',
    tag,
    permission: 'operator',
    scope: null,
    body: z
      .object({
        domain: domainName('the recipient domain to hold'),
        reason: z.string().trim().min(1).max(500).optional().describe('why, shown beside the hold'),
      })
      .strict(),
    exampleBody: { domain: 'example.com', reason: 'Their MX is rejecting us; waiting for their postmaster' },
    responses: {
      201: {
        description: 'The hold was placed; `held` deliveries that were waiting are now held',
        schema: holdShape.extend({ held: count, already_held: z.boolean() }),
      },
    },
    handler: async ({ body, services, session }) => {
      const { created, held } = await services.deliveries.holdDestination({
        domain: body.domain,
        reason: body.reason ?? null,
        heldBy: session.user.email,
      });
      const hold = (await services.deliveries.destinationHolds()).find((h) => h.domain === body.domain)!;
      return { status: 201, body: { ...serialize(hold), held, already_held: !created } };
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/admin/queue/holds/:domain',
    operationId: 'adminReleaseDestination',
    summary: 'Release a held recipient domain: its held mail is due now',
    tag,
    permission: 'operator',
    scope: null,
    params: z.object({ domain: domainName('the held recipient domain') }),
    responses: {
      200: {
        description: 'The hold is gone; `released` deliveries are back in the queue',
        schema: z.object({
          object: z.literal('destination_hold'),
          domain: z.string(),
          deleted: z.literal(true),
          released: count,
        }),
      },
      404: { description: 'not_found: no hold on that domain' },
    },
    handler: async ({ params, services }) => {
      const { removed, released } = await services.deliveries.releaseDestination(params.domain);
      if (!removed)
        throw new NotFoundError(`No hold on ${params.domain}: GET /admin/queue/holds lists the held domains.`);
      return { status: 200, body: { object: 'destination_hold', domain: params.domain, deleted: true, released } };
    },
  }),
];
