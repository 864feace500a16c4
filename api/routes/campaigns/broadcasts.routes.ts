import { z } from 'zod';
import {
  clickedLinksQuerySchema,
  createBroadcastSchema,
  listBroadcastsQuerySchema,
  recipientsQuerySchema,
  sendBroadcastSchema,
  updateBroadcastSchema,
} from '../../../core/campaigns/broadcasts/broadcast.schemas.js';
import {
  publicBroadcast,
  publicBroadcastItem,
  publicClickedLink,
  publicRecipient,
} from '../../../core/campaigns/broadcasts/broadcast.shape.js';
import { BROADCAST_STATUSES } from '../../../core/campaigns/broadcasts/broadcast.types.js';
import { listEnvelope } from '../../../core/shared/pagination/list-query.js';
import { defineRoute } from '../../route.js';
import { deletedSchema, listSchema } from '../../schemas.js';
import { auditEvent } from '../../audit-events.js';

const tag = 'broadcasts';
const read = 'broadcasts:read';
const write = 'broadcasts:write';
const params = z.object({ broadcast_id: z.string().min(1).max(64).describe('Broadcast id') });
const isolation = { param: 'broadcast_id', resource: 'broadcast' };
const ref = z.object({ object: z.literal('broadcast'), id: z.string() });
const item = z.object({
  id: z.string(),
  name: z.string().nullable(),
  segment_id: z.string().nullable(),
  audience_id: z.string().nullable(),
  status: z.enum(BROADCAST_STATUSES),
  created_at: z.string(),
  scheduled_at: z.string().optional(),
  sent_at: z.string().optional(),
});
const full = item.extend({
  object: z.literal('broadcast'),
  topic_id: z.string().nullable(),
  from: z.string().nullable(),
  subject: z.string().nullable(),
  reply_to: z.array(z.string()).nullable(),
  preview_text: z.string().nullable(),
  html: z.string().nullable(),
  text: z.string().nullable(),
});
const example = {
  name: 'November news',
  segment_id: '0199a0a0-0000-7000-8000-000000000001',
  from: 'Acme <news@acme.example>',
  subject: 'Hello {{{FIRST_NAME|there}}}',
  html: '<p>Hi {{{FIRST_NAME|there}}}</p><p><a href="{{{UNSUBSCRIBE_URL}}}">Unsubscribe</a></p>',
};
const refOf = (id: string) => ({ object: 'broadcast' as const, id });

export const broadcastRoutes = [
  defineRoute({
    method: 'POST',
    path: '/broadcasts',
    operationId: 'createBroadcast',
    summary: 'Create a broadcast (a draft; with send: true it passes the gate and is queued or scheduled)',
    tag,
    permission: 'full_access',
    scope: write,
    body: createBroadcastSchema,
    exampleBody: example,
    responses: { 201: { description: 'Created', schema: ref } },
    handler: async ({ body, caller, services }) => ({
      status: 201,
      body: refOf((await services.broadcasts.create(caller.team, body)).id),
    }),
  }),
  defineRoute({
    method: 'GET',
    path: '/broadcasts',
    operationId: 'listBroadcasts',
    summary: 'List broadcasts, newest first (search in name and subject; status)',
    tag,
    permission: 'sending_access',
    scope: read,
    query: listBroadcastsQuerySchema,
    responses: { 200: { description: 'A page of broadcasts', schema: listSchema(item) } },
    handler: async ({ query, caller, services }) => {
      const { broadcasts, hasMore } = await services.broadcasts.list(caller.team.id, query);
      return { status: 200, body: listEnvelope(broadcasts.map(publicBroadcastItem), hasMore) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/broadcasts/:broadcast_id',
    operationId: 'getBroadcast',
    summary: 'Retrieve a broadcast with its content',
    tag,
    permission: 'sending_access',
    scope: read,
    params,
    isolation,
    responses: { 200: { description: 'The broadcast', schema: full } },
    handler: async ({ params, caller, services }) => ({
      status: 200,
      body: publicBroadcast(await services.broadcasts.get(caller.team.id, params.broadcast_id)),
    }),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/broadcasts/:broadcast_id',
    operationId: 'updateBroadcast',
    summary: 'Change a draft (only the fields present)',
    tag,
    permission: 'full_access',
    scope: write,
    params,
    isolation,
    body: updateBroadcastSchema,
    exampleBody: { subject: 'A better subject' },
    responses: { 200: { description: 'Updated', schema: ref } },
    handler: async ({ params, body, caller, services }) => ({
      status: 200,
      body: refOf((await services.broadcasts.update(caller.team, params.broadcast_id, body)).id),
    }),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/broadcasts/:broadcast_id',
    operationId: 'deleteBroadcast',
    summary: 'Delete a draft',
    tag,
    permission: 'full_access',
    scope: write,
    params,
    isolation,
    responses: { 200: { description: 'Deleted', schema: deletedSchema('broadcast') } },
    handler: async ({ params, caller, services }) => {
      const broadcast = await services.broadcasts.remove(caller.team.id, params.broadcast_id);
      return { status: 200, body: { object: 'broadcast', id: broadcast.id, deleted: true } };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/broadcasts/:broadcast_id/send',
    operationId: 'sendBroadcast',
    summary: 'Send a draft now or at scheduled_at (ISO 8601 or a phrase, one minute to thirty days out)',
    tag,
    permission: 'full_access',
    scope: write,
    params,
    isolation,
    body: sendBroadcastSchema,
    exampleBody: {},
    responses: { 200: { description: 'Queued or scheduled', schema: ref } },
    audit: ({ params, body }) =>
      auditEvent('broadcast.sent', 'broadcast', params.broadcast_id, { scheduled_at: body.scheduled_at ?? null }),
    handler: async ({ params, body, caller, services }) => ({
      status: 200,
      body: refOf((await services.broadcasts.send(caller.team, params.broadcast_id, body.scheduled_at)).id),
    }),
  }),
  defineRoute({
    method: 'POST',
    path: '/broadcasts/:broadcast_id/cancel',
    operationId: 'cancelBroadcast',
    summary: 'Cancel a scheduled, queued or sending broadcast (sending stops at the next page)',
    tag,
    permission: 'full_access',
    scope: write,
    params,
    isolation,
    responses: { 200: { description: 'Canceled', schema: ref } },
    audit: ({ params }) => auditEvent('broadcast.canceled', 'broadcast', params.broadcast_id),
    handler: async ({ params, caller, services }) => ({
      status: 200,
      body: refOf((await services.broadcasts.cancel(caller.team.id, params.broadcast_id)).id),
    }),
  }),
  defineRoute({
    method: 'POST',
    path: '/broadcasts/:broadcast_id/duplicate',
    operationId: 'duplicateBroadcast',
    summary: 'A new draft with the same content',
    tag,
    permission: 'full_access',
    scope: write,
    params,
    isolation,
    responses: { 201: { description: 'The copy', schema: ref } },
    handler: async ({ params, caller, services }) => ({
      status: 201,
      body: refOf((await services.broadcasts.duplicate(caller.team.id, params.broadcast_id)).id),
    }),
  }),
  defineRoute({
    method: 'GET',
    path: '/broadcasts/:broadcast_id/checklist',
    operationId: 'broadcastChecklist',
    summary: 'Run the send gate without sending: each check with pass/fail and a message',
    tag,
    permission: 'sending_access',
    scope: read,
    params,
    isolation,
    responses: {
      200: {
        description: 'The checks, in the gate’s order',
        schema: z.object({
          object: z.literal('broadcast_checklist'),
          broadcast_id: z.string(),
          ready: z.boolean(),
          checks: z.array(z.object({ check: z.string(), passed: z.boolean(), message: z.string() })),
        }),
      },
    },
    handler: async ({ params, caller, services }) => {
      const { broadcast, checks } = await services.broadcasts.checklist(caller.team, params.broadcast_id);
      return {
        status: 200,
        body: {
          object: 'broadcast_checklist',
          broadcast_id: broadcast.id,
          ready: checks.every((c) => c.passed),
          checks,
        },
      };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/broadcasts/:broadcast_id/recipients',
    operationId: 'listBroadcastRecipients',
    summary:
      'Recipients to whom one thing happened (type: sent, delivered, opened, clicked, bounced, complained, unsubscribed, suppressed), newest contact first',
    tag,
    permission: 'sending_access',
    scope: read,
    params,
    isolation,
    query: recipientsQuerySchema,
    exampleQuery: 'type=clicked',
    responses: {
      200: {
        description: 'A page of recipients; `id` is the row cursor',
        schema: listSchema(
          z.object({
            id: z.string(),
            contact_id: z.string().nullable(),
            email: z.string(),
            count: z.number().int().optional(),
            clicked_links: z.array(z.object({ url: z.string(), clicks: z.number().int() })).optional(),
            bounce_type: z.enum(['permanent', 'transient', 'undetermined']).optional(),
          }),
        ),
      },
    },
    handler: async ({ params, query, caller, services }) => {
      const { rows, hasMore } = await services.broadcasts.recipients(caller.team.id, params.broadcast_id, query);
      return {
        status: 200,
        body: listEnvelope(
          rows.map((row) => publicRecipient(query.type, row)),
          hasMore,
        ),
      };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/broadcasts/:broadcast_id/clicked-links',
    operationId: 'listBroadcastClickedLinks',
    summary: 'Links clicked in the broadcast, with total and unique clicks; `id` is the row cursor',
    tag,
    permission: 'sending_access',
    scope: read,
    params,
    isolation,
    query: clickedLinksQuerySchema,
    responses: {
      200: {
        description: 'A page of links',
        schema: listSchema(
          z.object({ id: z.string(), url: z.string(), clicks: z.number().int(), unique_clicks: z.number().int() }),
        ),
      },
    },
    handler: async ({ params, query, caller, services }) => {
      const { rows, hasMore } = await services.broadcasts.clickedLinks(caller.team.id, params.broadcast_id, query);
      return { status: 200, body: listEnvelope(rows.map(publicClickedLink), hasMore) };
    },
  }),
];
