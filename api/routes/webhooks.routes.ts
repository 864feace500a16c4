import { z } from 'zod';
import { EVENT_TYPES } from '../../core/events/log/event.types.js';
import { listEnvelope } from '../../core/shared/pagination/list-query.js';
import {
  createWebhookSchema,
  listQuerySchema,
  testWebhookSchema,
  updateWebhookSchema,
} from '../../core/events/webhooks/webhook.schemas.js';
import { DELIVERY_STATUSES, ENDPOINT_STATUSES } from '../../core/events/webhooks/webhook.types.js';
import { defineRoute } from '../route.js';
import { deletedSchema, listSchema, uuidParam } from '../schemas.js';
import {
  serializeWebhookAttempt,
  serializeWebhookEvent,
  serializeWebhookEventItem,
} from '../serializers/webhook-event.serializer.js';
import { serializeSigningSecret, serializeWebhook, serializeWebhookItem } from '../serializers/webhook.serializer.js';
import { answeredId, auditEvent } from '../audit-events.js';

/** Webhook endpoints, their signing secrets, and what was sent to them: the SDK's `webhooks.*` calls. */
const tag = 'webhooks';
const common = {
  tag,
  permission: 'full_access' as const,
  scope: null,
  isolation: { param: 'webhook_id', resource: 'webhook' },
};
const params = z.object({ webhook_id: uuidParam('Webhook endpoint id') });
const eventParams = params.extend({ event_id: uuidParam('Event id (the webhook-id header of its deliveries)') });
const ref = z.object({ object: z.literal('webhook'), id: z.string() });
const item = z.object({
  id: z.string(),
  endpoint: z.string(),
  created_at: z.string(),
  status: z.enum(ENDPOINT_STATUSES),
  events: z.array(z.enum(EVENT_TYPES)),
});
const detail = item.extend({ object: z.literal('webhook'), signing_secret: z.string() });
const secret = ref.extend({ signing_secret: z.string(), previous_signing_secret_expires_at: z.string().nullable() });
const eventItem = z.object({
  id: z.string(),
  type: z.enum(EVENT_TYPES),
  created_at: z.string(),
  status: z.enum(DELIVERY_STATUSES),
});
const payload = z.object({
  type: z.enum(EVENT_TYPES),
  created_at: z.string(),
  data: z.record(z.string(), z.unknown()),
});
const eventDetail = eventItem.extend({
  object: z.literal('webhook_event'),
  attempts: z.number().int(),
  next_attempt_at: z.string().nullable(),
  payload,
});
const attempt = z.object({
  id: z.string(),
  http_status_code: z.number().int(),
  response: z.string(),
  error: z.string().nullable(),
  duration_ms: z.number().int(),
  sent_at: z.string(),
});

const endpointRoutes = [
  defineRoute({
    ...common,
    isolation: undefined,
    method: 'POST',
    path: '/webhooks',
    operationId: 'createWebhook',
    summary: 'Create a webhook endpoint; answers its signing secret',
    body: createWebhookSchema,
    exampleBody: { endpoint: 'https://example.com/webhooks', events: ['email.delivered', 'email.bounced'] },
    responses: { 201: { description: 'Created (status enabled)', schema: ref.extend({ signing_secret: z.string() }) } },
    audit: ({ body }, result) =>
      auditEvent('webhook.created', 'webhook', answeredId(result), { endpoint: body.endpoint, events: body.events }),
    handler: async ({ body, caller, services }) => {
      const { endpoint, secret } = await services.webhooks.create(caller.team, body);
      return { status: 201, body: { object: 'webhook', id: endpoint.id, signing_secret: secret } };
    },
  }),
  defineRoute({
    ...common,
    isolation: undefined,
    method: 'GET',
    path: '/webhooks',
    operationId: 'listWebhooks',
    summary: 'List webhook endpoints, newest first',
    query: listQuerySchema,
    responses: { 200: { description: 'A page of endpoints', schema: listSchema(item) } },
    handler: async ({ query, caller, services }) => {
      const { endpoints, hasMore } = await services.webhooks.list(caller.team.id, query);
      return { status: 200, body: listEnvelope(endpoints.map(serializeWebhookItem), hasMore) };
    },
  }),
  defineRoute({
    ...common,
    method: 'GET',
    path: '/webhooks/:webhook_id',
    operationId: 'getWebhook',
    summary: 'Retrieve a webhook endpoint with its signing secret',
    params,
    responses: { 200: { description: 'The endpoint', schema: detail } },
    handler: async ({ params, caller, services }) => ({
      status: 200,
      body: serializeWebhook(await services.webhooks.get(caller.team.id, params.webhook_id)),
    }),
  }),
  defineRoute({
    ...common,
    method: 'PATCH',
    path: '/webhooks/:webhook_id',
    operationId: 'updateWebhook',
    summary: 'Change the URL, the event types, or enable/disable the endpoint',
    params,
    body: updateWebhookSchema,
    exampleBody: { events: ['email.delivered'] },
    responses: { 200: { description: 'Updated', schema: ref } },
    audit: ({ params, body }) =>
      auditEvent('webhook.updated', 'webhook', params.webhook_id, { changed: Object.keys(body) }),
    handler: async ({ params, body, caller, services }) => {
      const endpoint = await services.webhooks.update(caller.team.id, params.webhook_id, body);
      return { status: 200, body: { object: 'webhook', id: endpoint.id } };
    },
  }),
  defineRoute({
    ...common,
    method: 'DELETE',
    path: '/webhooks/:webhook_id',
    operationId: 'deleteWebhook',
    summary: 'Delete a webhook endpoint and its delivery log',
    params,
    responses: { 200: { description: 'Deleted', schema: deletedSchema('webhook') } },
    audit: ({ params }) => auditEvent('webhook.deleted', 'webhook', params.webhook_id),
    handler: async ({ params, caller, services }) => {
      const endpoint = await services.webhooks.remove(caller.team.id, params.webhook_id);
      return { status: 200, body: { object: 'webhook', id: endpoint.id, deleted: true } };
    },
  }),
  defineRoute({
    ...common,
    method: 'GET',
    path: '/webhooks/:webhook_id/signing-secret',
    operationId: 'getWebhookSigningSecret',
    summary: 'Retrieve the signing secret (and when a rotated-out one stops signing)',
    params,
    responses: { 200: { description: 'The current secret', schema: secret } },
    handler: async ({ params, caller, services }) => ({
      status: 200,
      body: serializeSigningSecret(await services.webhooks.signingSecret(caller.team.id, params.webhook_id)),
    }),
  }),
  defineRoute({
    ...common,
    method: 'POST',
    path: '/webhooks/:webhook_id/signing-secret/rotate',
    operationId: 'rotateWebhookSigningSecret',
    summary: 'Rotate the signing secret; the previous one keeps signing during the grace period',
    params,
    responses: { 200: { description: 'The new secret', schema: secret } },
    audit: ({ params }) => auditEvent('webhook.secret_rotated', 'webhook', params.webhook_id),
    handler: async ({ params, caller, services }) => ({
      status: 200,
      body: serializeSigningSecret(await services.webhooks.rotateSecret(caller.team.id, params.webhook_id)),
    }),
  }),
];

const eventRoutes = [
  defineRoute({
    ...common,
    method: 'GET',
    path: '/webhooks/:webhook_id/events',
    operationId: 'listWebhookEvents',
    summary: 'Events sent to an endpoint with their delivery status, newest first',
    params,
    query: listQuerySchema,
    responses: { 200: { description: 'A page of deliveries', schema: listSchema(eventItem) } },
    handler: async ({ params, query, caller, services }) => {
      const { deliveries, hasMore } = await services.webhookDeliveries.list(caller.team.id, params.webhook_id, query);
      return { status: 200, body: listEnvelope(deliveries.map(serializeWebhookEventItem), hasMore) };
    },
  }),
  defineRoute({
    ...common,
    method: 'GET',
    path: '/webhooks/:webhook_id/events/:event_id',
    operationId: 'getWebhookEvent',
    summary: 'One event sent to an endpoint, with the payload it POSTs',
    params: eventParams,
    responses: { 200: { description: 'The delivery', schema: eventDetail } },
    handler: async ({ params, caller, services }) => {
      const { delivery, payload } = await services.webhookDeliveries.get(
        caller.team.id,
        params.webhook_id,
        params.event_id,
      );
      return { status: 200, body: serializeWebhookEvent(delivery, payload) };
    },
  }),
  defineRoute({
    ...common,
    method: 'GET',
    path: '/webhooks/:webhook_id/events/:event_id/attempts',
    operationId: 'listWebhookEventAttempts',
    summary: 'Attempts to deliver one event to an endpoint, newest first',
    params: eventParams,
    query: listQuerySchema,
    responses: { 200: { description: 'A page of attempts', schema: listSchema(attempt) } },
    handler: async ({ params, query, caller, services }) => {
      const { attempts, hasMore } = await services.webhookDeliveries.attempts(
        caller.team.id,
        params.webhook_id,
        params.event_id,
        query,
      );
      return { status: 200, body: listEnvelope(attempts.map(serializeWebhookAttempt), hasMore) };
    },
  }),
  defineRoute({
    ...common,
    method: 'POST',
    path: '/webhooks/:webhook_id/events/:event_id/replay',
    operationId: 'replayWebhookEvent',
    summary: 'Send an event to an endpoint again (same webhook-id); refused on a disabled endpoint',
    params: eventParams,
    responses: {
      200: {
        description: 'Queued for delivery',
        schema: z.object({ object: z.literal('webhook_event'), id: z.string() }),
      },
    },
    handler: async ({ params, caller, services }) => {
      const delivery = await services.webhookDeliveries.replay(caller.team.id, params.webhook_id, params.event_id);
      return { status: 200, body: { object: 'webhook_event', id: delivery.eventId } };
    },
  }),
  defineRoute({
    ...common,
    method: 'POST',
    path: '/webhooks/:webhook_id/test',
    operationId: 'sendWebhookTestEvent',
    summary: 'Send the endpoint a test event now (data.test is true); refused on a disabled endpoint',
    params,
    body: testWebhookSchema,
    exampleBody: {},
    responses: {
      200: {
        description: 'Queued for delivery: follow it with GET /webhooks/{id}/events/{event_id}',
        schema: z.object({ object: z.literal('webhook_event'), id: z.string(), type: z.enum(EVENT_TYPES) }),
      },
    },
    handler: async ({ params, body, caller, services, unit }) => {
      const { event } = await services.webhookDeliveries.sendTest(caller.team.id, params.webhook_id, body.type, unit);
      return { status: 200, body: { object: 'webhook_event', id: event.id, type: event.type } };
    },
  }),
];

export const webhookRoutes = [...endpointRoutes, ...eventRoutes];
