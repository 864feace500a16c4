import { z } from 'zod';
import { EVENT_TYPES } from '../../../core/events/log/event.types.js';
import { DELIVERY_STATUSES } from '../../../core/events/webhooks/webhook.types.js';
import { DELIVERY_STATES } from '../../../core/sending/deliveries/delivery.types.js';
import { REGIONS } from '../../../lib/config/egress-pools.js';
import { listEnvelope, pageQueryShape, withPageRules } from '../../../core/shared/pagination/list-query.js';
import { defineRoute } from '../../route.js';
import { listSchema, uuidParam } from '../../schemas.js';
import {
  serializeEmailDelivery,
  serializeEmailEvent,
  serializeEmailWebhookDelivery,
} from '../../serializers/email-activity.serializer.js';

/**
 * What happened to one email after it was accepted, for the dashboard's email page: its event
 * timeline, its outbound deliveries with their SMTP attempts, and the webhook deliveries its
 * events caused. Each first checks that the email is the caller's team's (404 otherwise).
 */
const tag = 'emails';
const params = z.object({ email_id: uuidParam('Email id') });
const isolation = { param: 'email_id', resource: 'email' };
/** Oldest first; limit 1..100, default 100 (a whole timeline in one page in nearly every case). */
const timelinePage = withPageRules(z.object({ ...pageQueryShape }).strict());
const deliveriesQuery = z
  .object({
    transcripts: z
      .enum(['true', 'false'], { error: 'must be true or false' })
      .optional()
      .describe('Include each attempt’s SMTP transcript (default true)'),
  })
  .strict();

const event = z.object({
  object: z.literal('event'),
  id: z.string(),
  type: z.enum(EVENT_TYPES),
  created_at: z.string(),
  data: z.record(z.string(), z.unknown()),
});
const attempt = z.object({
  at: z.string(),
  outcome: z.string(),
  egress_ip: z.string().nullable(),
  egress_region: z.enum(REGIONS).nullable(),
  egress_helo: z.string().nullable(),
  mx_host: z.string().nullable(),
  tls: z.object({ used: z.boolean().nullable(), version: z.null(), cipher: z.null() }),
  reply: z
    .object({
      code: z.number().int().nullable(),
      enhanced_code: z.string().nullable(),
      text: z.string(),
      raw: z.string(),
    })
    .nullable(),
  duration_ms: z.number().int(),
  transcript: z.string().nullable().optional(),
});
const delivery = z.object({
  object: z.literal('delivery'),
  id: z.string(),
  recipient: z.string(),
  state: z.enum(DELIVERY_STATES),
  attempts: z.number().int(),
  next_attempt_at: z.string().nullable(),
  expires_at: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  attempt_log: z.array(attempt),
});
const webhookDelivery = z.object({
  object: z.literal('webhook_delivery'),
  id: z.string(),
  webhook_id: z.string(),
  endpoint: z.string().nullable(),
  event_id: z.string(),
  event_type: z.enum(EVENT_TYPES),
  status: z.enum(DELIVERY_STATUSES),
  attempts: z.number().int(),
  last_status_code: z.number().int().nullable(),
  last_attempt_at: z.string().nullable(),
  created_at: z.string(),
});

export const emailActivityRoutes = [
  defineRoute({
    method: 'GET',
    path: '/emails/:email_id/events',
    operationId: 'listEmailEvents',
    summary: 'The email’s event timeline, oldest first',
    tag,
    permission: 'sending_access',
    scope: 'emails:read',
    params,
    query: timelinePage,
    isolation,
    responses: { 200: { description: 'A page of the email’s events', schema: listSchema(event) } },
    handler: async ({ params, query, caller, services }) => {
      const email = await services.emails.find(caller.team.id, params.email_id);
      const { events, hasMore } = await services.eventLog.ofEmail(caller.team.id, email.id, query);
      return { status: 200, body: listEnvelope(events.map(serializeEmailEvent), hasMore) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/emails/:email_id/deliveries',
    operationId: 'listEmailDeliveries',
    summary: 'The email’s outbound deliveries (one per recipient) with their recent SMTP attempts',
    tag,
    permission: 'sending_access',
    scope: 'emails:read',
    params,
    query: deliveriesQuery,
    isolation,
    responses: { 200: { description: 'Every delivery of the email', schema: listSchema(delivery) } },
    handler: async ({ params, query, caller, services }) => {
      const email = await services.emails.find(caller.team.id, params.email_id);
      const details = await services.emailDeliveryLog.ofEmail(email, { transcripts: query.transcripts !== 'false' });
      // At most 50 recipients per email, so one page always holds them all.
      return { status: 200, body: listEnvelope(details.map(serializeEmailDelivery), false) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/emails/:email_id/webhook-deliveries',
    operationId: 'listEmailWebhookDeliveries',
    summary: 'Webhook deliveries caused by the email’s events, oldest first',
    tag,
    // Webhook endpoints and what was sent to them are full_access data, as under /webhooks.
    permission: 'full_access',
    scope: null,
    params,
    query: timelinePage,
    isolation,
    responses: { 200: { description: 'A page of webhook deliveries', schema: listSchema(webhookDelivery) } },
    handler: async ({ params, query, caller, services }) => {
      const email = await services.emails.find(caller.team.id, params.email_id);
      const { deliveries, hasMore } = await services.webhookDeliveries.ofEmail(caller.team.id, email.id, query);
      return { status: 200, body: listEnvelope(deliveries.map(serializeEmailWebhookDelivery), hasMore) };
    },
  }),
];
