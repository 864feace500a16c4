import { z } from 'zod';
import { PURGE_PREVIEW_LIMIT, isDomainName } from '../../../app/operator/queue-filter.js';
import type { QueueFilter } from '../../../core/sending/deliveries/delivery.types.js';
import { isUuid } from '../../../lib/ids.js';
import { defineRoute } from '../../route.js';
import { uuidParam } from '../../schemas.js';
import { ConfirmationRequiredError } from './admin-errors.js';

const tag = 'admin';
const instant = z.string().describe('ISO 8601 timestamp (UTC)');
const count = z.number().int().nonnegative();

const uuid = (description: string) =>
  z
    .string()
    .refine(isUuid, 'must be a UUID')
    .transform((value) => value.toLowerCase())
    .describe(description);

/**
 * Which deliveries an action changes: the rules of `mailroom queue hold|release|retry|purge`.
 * Each given value is checked and at least one is required, so a slip never acts on everything.
 */
const filterFields = {
  email_id: uuid('deliveries of this email').optional(),
  domain: z
    .string()
    .refine(isDomainName, 'must be a recipient domain name such as example.com')
    .transform((value) => value.toLowerCase())
    .describe('deliveries to this recipient domain')
    .optional(),
  team_id: uuid("deliveries of this team's mail").optional(),
};
const atLeastOne = {
  message: 'say which deliveries: email_id, domain or team_id (at least one; several narrow the match)',
  path: ['email_id'],
};
const hasFilter = (b: { email_id?: string; domain?: string; team_id?: string }) =>
  b.email_id !== undefined || b.domain !== undefined || b.team_id !== undefined;
const filterBody = z.object(filterFields).strict().refine(hasFilter, atLeastOne);
const purgeBody = z
  .object({ ...filterFields, confirm: z.boolean().optional().describe('true: really purge (cannot be undone)') })
  .strict()
  .refine(hasFilter, atLeastOne);

const toFilter = (b: { email_id?: string; domain?: string; team_id?: string }): QueueFilter => ({
  ...(b.email_id ? { emailId: b.email_id } : {}),
  ...(b.domain ? { recipientDomain: b.domain } : {}),
  ...(b.team_id ? { teamId: b.team_id } : {}),
});
const filterOut = (filter: QueueFilter) => ({
  email_id: filter.emailId ?? null,
  domain: filter.recipientDomain ?? null,
  team_id: filter.teamId ?? null,
});

const actionShape = z.object({
  object: z.literal('queue_action'),
  action: z.enum(['hold', 'release', 'retry', 'purge']),
  filter: z.object({ email_id: z.string().nullable(), domain: z.string().nullable(), team_id: z.string().nullable() }),
  affected: count,
});

const summaryShape = z.object({
  object: z.literal('queue_summary'),
  generated_at: instant,
  states: z.record(z.string(), count),
  lanes: z.array(z.object({ lane: z.string(), state: z.string(), count })),
  oldest_due_at: instant.nullable(),
  oldest_due_seconds: count.nullable(),
  destinations: z.array(z.object({ domain: z.string(), state: z.string(), count, oldest_seconds: count })),
  egress: z.array(z.object({ address: z.string().nullable(), state: z.string(), count })),
});

const deliveryShape = z.object({
  object: z.literal('queued_delivery'),
  id: z.string(),
  email_id: z.string(),
  team_id: z.string(),
  recipient: z.string(),
  recipient_domain: z.string(),
  state: z.string(),
  lane: z.string(),
  attempts: count,
  next_attempt_at: instant.nullable(),
  expires_at: instant.nullable(),
  last_reply: z.string().nullable(),
  egress_ip: z.string().nullable(),
  created_at: instant,
});

const attemptShape = z.object({
  at: instant.nullable(),
  outcome: z.string(),
  egress_ip: z.string().nullable(),
  mx_host: z.string().nullable(),
  reply: z.string().nullable(),
  duration_ms: z.number(),
  transcript: z.string().nullable().optional(),
});
const queueEmailShape = z.object({
  object: z.literal('queue_email'),
  email: z
    .object({
      id: z.string(),
      team_id: z.string(),
      from: z.string(),
      subject: z.string(),
      last_event: z.string().nullable(),
      created_at: instant.nullable(),
    })
    .nullable(),
  deliveries: z.array(
    z.object({
      id: z.string(),
      recipient: z.string(),
      state: z.string(),
      lane: z.string(),
      attempts: count,
      next_attempt_at: instant.nullable(),
      expires_at: instant.nullable(),
      last_reply: z.string().nullable(),
      egress_ip: z.string().nullable(),
      attempt_log: z.array(attemptShape),
    }),
  ),
});

const ACTIONS = [
  { action: 'hold', summary: 'Hold waiting (queued, deferred) deliveries: no worker takes them until released' },
  { action: 'release', summary: 'Put held deliveries back in the queue, due now' },
  { action: 'retry', summary: 'Make queued and deferred deliveries due now (held ones need release)' },
] as const;

/** The outbound queue: depth, search, one email's attempts, and the operator's actions. */
export const adminQueueRoutes = [
  defineRoute({
    method: 'GET',
    path: '/admin/queue',
    operationId: 'adminGetQueue',
    summary: 'Queue depth by state and lane, the oldest due delivery, waiting mail by destination and egress IP',
    tag,
    permission: 'operator',
    scope: null,
    responses: { 200: { description: 'The queue summary', schema: summaryShape } },
    handler: async ({ services }) => {
      const now = services.operatorConsole.now();
      const overview = await services.operatorConsole.queue.overview(now);
      return { status: 200, body: { object: 'queue_summary', generated_at: now.toISOString(), ...overview } };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/admin/queue/messages',
    operationId: 'adminSearchQueue',
    summary: 'Find deliveries by email id and/or recipient address, newest first',
    tag,
    permission: 'operator',
    scope: null,
    query: z
      .object({
        email_id: uuid('the email id').optional(),
        recipient: z.string().min(3).max(320).describe('the recipient address (case-insensitive)').optional(),
        limit: z.coerce.number().int().min(1).max(200).default(50),
      })
      .strict()
      .refine((q) => q.email_id !== undefined || q.recipient !== undefined, {
        message: 'search by email_id or recipient (at least one)',
        path: ['email_id'],
      }),
    exampleQuery: 'recipient=someone@example.com',
    responses: {
      200: {
        description: 'Matching deliveries',
        schema: z.object({ object: z.literal('list'), has_more: z.boolean(), data: z.array(deliveryShape) }),
      },
    },
    handler: async ({ query, services }) => {
      const { data, hasMore } = await services.operatorConsole.queue.search(
        { emailId: query.email_id, recipient: query.recipient },
        query.limit,
      );
      return { status: 200, body: { object: 'list', has_more: hasMore, data } };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/admin/queue/emails/:email_id',
    operationId: 'adminGetQueueEmail',
    summary: "One email's deliveries and each one's attempts (with transcripts=true, the SMTP transcripts)",
    tag,
    permission: 'operator',
    scope: null,
    params: z.object({ email_id: uuidParam('The email id') }),
    query: z.object({ transcripts: z.enum(['true', 'false']).default('false') }).strict(),
    responses: { 200: { description: 'Deliveries and attempts', schema: queueEmailShape } },
    handler: async ({ params, query, services }) => {
      const view = await services.operatorConsole.queue.email(params.email_id, query.transcripts === 'true');
      return { status: 200, body: { object: 'queue_email', ...view } };
    },
  }),
  ...ACTIONS.map(({ action, summary }) =>
    defineRoute({
      method: 'POST',
      path: `/admin/queue/${action}`,
      operationId: `adminQueue${action[0]!.toUpperCase()}${action.slice(1)}`,
      summary,
      tag,
      permission: 'operator',
      scope: null,
      body: filterBody,
      exampleBody: { domain: 'example.com' },
      responses: { 200: { description: 'How many deliveries changed', schema: actionShape } },
      handler: async ({ body, services }) => {
        const filter = toFilter(body);
        const { deliveries } = services;
        const affected =
          action === 'hold'
            ? await deliveries.hold(filter)
            : action === 'release'
              ? await deliveries.release(filter)
              : await deliveries.retryNow(filter);
        return { status: 200, body: { object: 'queue_action', action, filter: filterOut(filter), affected } };
      },
    }),
  ),
  defineRoute({
    method: 'POST',
    path: '/admin/queue/purge',
    operationId: 'adminQueuePurge',
    summary: 'Remove waiting deliveries for good, recording email.failed for each (needs confirm: true)',
    tag,
    permission: 'operator',
    scope: null,
    body: purgeBody,
    exampleBody: { domain: 'example.com', confirm: true },
    responses: {
      200: { description: 'How many deliveries were removed', schema: actionShape },
      409: { description: 'confirmation_required: without confirm: true nothing changes (details.would_remove)' },
    },
    handler: async ({ body, services }) => {
      const filter = toFilter(body);
      const { deliveries } = services;
      if (body.confirm !== true) {
        const matching = (await deliveries.repository.waiting(filter, PURGE_PREVIEW_LIMIT)).length;
        const counted = matching === PURGE_PREVIEW_LIMIT ? `${PURGE_PREVIEW_LIMIT} or more` : String(matching);
        throw new ConfirmationRequiredError(
          `purge would remove ${counted} waiting (queued, deferred, held) deliveries and record email.failed for each; nothing was changed. Send confirm: true to purge.`,
          matching,
        );
      }
      const affected = await deliveries.purge(filter);
      return { status: 200, body: { object: 'queue_action', action: 'purge', filter: filterOut(filter), affected } };
    },
  }),
];
