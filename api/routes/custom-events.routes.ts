import { z } from 'zod';
import {
  createCustomEventSchema,
  listCustomEventsQuerySchema,
  sendCustomEventSchema,
  updateCustomEventSchema,
} from '../../core/custom-events/custom-event.schemas.js';
import { publicCustomEvent, publicCustomEventItem } from '../../core/custom-events/custom-event.shape.js';
import { SCHEMA_TYPES } from '../../core/custom-events/custom-event.types.js';
import { listEnvelope } from '../../core/shared/pagination/list-query.js';
import { defineRoute } from '../route.js';
import { deletedSchema, listSchema } from '../schemas.js';

/**
 * Custom events (document 2, "Custom events"): definitions, and POST /events/send, which answers
 * 202 only once the event's row has committed with the request. The SDK's `events` resource is
 * the contract where the spec shows nothing: DELETE /events/{identifier} answers
 * { object: 'event', id, deleted: true }.
 */
const tag = 'events';
const read = 'events:read';
const write = 'events:write';
const params = z.object({ identifier: z.string().min(1).max(200).describe('Event id or name') });
const isolation = { param: 'identifier', resource: 'custom_event' };
const ref = z.object({ object: z.literal('event'), id: z.string() });
const schemaMap = z.record(z.string(), z.enum(SCHEMA_TYPES)).nullable();
const item = z.object({
  id: z.string(),
  name: z.string(),
  schema: schemaMap,
  created_at: z.string(),
  updated_at: z.string().nullable(),
});

export const customEventRoutes = [
  defineRoute({
    method: 'POST',
    path: '/events',
    operationId: 'createEvent',
    summary: 'Define a custom event (a name fixed at creation, and an optional payload schema)',
    tag,
    permission: 'full_access',
    scope: write,
    body: createCustomEventSchema,
    exampleBody: { name: 'user.signed_up', schema: { plan: 'string', seats: 'number', trial_ends: 'date' } },
    responses: { 201: { description: 'Created', schema: ref } },
    handler: async ({ body, caller, services }) => {
      const definition = await services.customEvents.create(caller.team.id, body);
      return { status: 201, body: { object: 'event', id: definition.id } };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/events',
    operationId: 'listEvents',
    summary: 'List custom event definitions, newest first (search in the name)',
    tag,
    permission: 'full_access',
    scope: read,
    query: listCustomEventsQuerySchema,
    responses: { 200: { description: 'A page of definitions', schema: listSchema(item) } },
    handler: async ({ query, caller, services }) => {
      const { definitions, hasMore } = await services.customEvents.list(caller.team.id, query);
      return { status: 200, body: listEnvelope(definitions.map(publicCustomEventItem), hasMore) };
    },
  }),
  // A literal path: registered before /events/:identifier by the router, whatever the order here.
  defineRoute({
    method: 'POST',
    path: '/events/send',
    operationId: 'sendEvent',
    summary:
      'Send a custom event for one contact (contact_id or email); 202 once durable. No idempotency: two calls are two events',
    tag,
    permission: 'sending_access',
    scope: 'events:send',
    body: sendCustomEventSchema,
    exampleBody: { event: 'user.signed_up', email: 'ada@example.com', payload: { plan: 'pro', seats: 3 } },
    responses: {
      202: {
        description: 'Accepted and durable',
        schema: z.object({ object: z.literal('event'), event: z.string() }),
      },
    },
    handler: async ({ body, caller, services, unit }) => {
      const sent = await services.customEvents.send(caller.team.id, body, unit);
      return { status: 202, body: { object: 'event', event: sent.eventName } };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/events/:identifier',
    operationId: 'getEvent',
    summary: 'Retrieve a custom event definition by id or name (schema null when none)',
    tag,
    permission: 'full_access',
    scope: read,
    params,
    isolation,
    responses: { 200: { description: 'The definition', schema: item.extend({ object: z.literal('event') }) } },
    handler: async ({ params, caller, services }) => ({
      status: 200,
      body: publicCustomEvent(await services.customEvents.get(caller.team.id, params.identifier)),
    }),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/events/:identifier',
    operationId: 'updateEvent',
    summary: 'Replace the schema of a definition (null clears it; never merged; the name cannot change)',
    tag,
    permission: 'full_access',
    scope: write,
    params,
    isolation,
    body: updateCustomEventSchema,
    exampleBody: { schema: { plan: 'string' } },
    responses: { 200: { description: 'Updated', schema: ref } },
    handler: async ({ params, body, caller, services }) => {
      const definition = await services.customEvents.update(caller.team.id, params.identifier, body);
      return { status: 200, body: { object: 'event', id: definition.id } };
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/events/:identifier',
    operationId: 'deleteEvent',
    summary: 'Delete a definition (soft: its name is free again; it answers 404 from then on)',
    tag,
    permission: 'full_access',
    scope: write,
    params,
    isolation,
    responses: { 200: { description: 'Deleted', schema: deletedSchema('event') } },
    handler: async ({ params, caller, services }) => {
      const definition = await services.customEvents.remove(caller.team.id, params.identifier);
      return { status: 200, body: { object: 'event', id: definition.id, deleted: true } };
    },
  }),
];
