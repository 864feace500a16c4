import { z } from 'zod';
import { listEnvelope } from '../../core/shared/pagination/list-query.js';
import {
  addSuppressionSchema,
  batchAddSchema,
  batchRemoveSchema,
  listSuppressionsQuerySchema,
} from '../../core/sending/suppressions/suppression.schemas.js';
import { defineRoute } from '../route.js';
import { deletedSchema, listSchema } from '../schemas.js';
import { serializeSuppression, serializeSuppressionItem } from '../serializers/suppression.serializer.js';
import { answeredId, auditEvent } from '../audit-events.js';

const tag = 'suppressions';
const params = z.object({ suppression: z.string().min(1).max(320).describe('Suppression id or e-mail address') });
const isolation = { param: 'suppression', resource: 'suppression' };
const suppression = z.object({
  object: z.literal('suppression'),
  id: z.string(),
  email: z.string(),
  origin: z.string(),
  source_id: z.string().nullable(),
  created_at: z.string(),
});
const ref = z.object({ object: z.literal('suppression'), id: z.string() });

export const suppressionRoutes = [
  defineRoute({
    method: 'POST',
    path: '/suppressions',
    operationId: 'addSuppression',
    summary: 'Suppress an address (origin manual)',
    tag,
    permission: 'full_access',
    scope: null,
    body: addSuppressionSchema,
    exampleBody: { email: 'someone@example.com' },
    responses: { 201: { description: 'Suppressed (an address already on the list keeps its entry)', schema: ref } },
    audit: ({ body }, result) =>
      auditEvent('suppression.added', 'suppression', answeredId(result), { email: body.email }),
    handler: async ({ body, caller, services }) => {
      const s = await services.suppressions.add(caller.team.id, body.email);
      return { status: 201, body: { object: 'suppression', id: s.id } };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/suppressions',
    operationId: 'listSuppressions',
    summary: 'List suppressions, newest first',
    tag,
    permission: 'full_access',
    scope: null,
    query: listSuppressionsQuerySchema,
    responses: {
      200: { description: 'A page of suppressions', schema: listSchema(suppression.omit({ object: true })) },
    },
    handler: async ({ query, caller, services }) => {
      const { suppressions, hasMore } = await services.suppressions.list(caller.team.id, query);
      return { status: 200, body: listEnvelope(suppressions.map(serializeSuppressionItem), hasMore) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/suppressions/:suppression',
    operationId: 'getSuppression',
    summary: 'Retrieve a suppression by id or address',
    tag,
    permission: 'full_access',
    scope: null,
    params,
    isolation,
    responses: { 200: { description: 'The suppression', schema: suppression } },
    handler: async ({ params, caller, services }) => ({
      status: 200,
      body: serializeSuppression(await services.suppressions.get(caller.team.id, params.suppression)),
    }),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/suppressions/:suppression',
    operationId: 'deleteSuppression',
    summary: 'Remove a suppression by id or address',
    tag,
    permission: 'full_access',
    scope: null,
    params,
    isolation,
    responses: { 200: { description: 'Removed', schema: deletedSchema('suppression') } },
    audit: ({ params }, result) =>
      auditEvent('suppression.removed', 'suppression', answeredId(result), { suppression: params.suppression }),
    handler: async ({ params, caller, services }) => {
      const s = await services.suppressions.remove(caller.team.id, params.suppression);
      return { status: 200, body: { object: 'suppression', id: s.id, deleted: true } };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/suppressions/batch/add',
    operationId: 'batchAddSuppressions',
    summary: 'Suppress up to 100 addresses',
    tag,
    permission: 'full_access',
    scope: null,
    body: batchAddSchema,
    exampleBody: { emails: ['a@example.com', 'b@example.com'] },
    responses: { 201: { description: 'One entry per address', schema: z.object({ data: z.array(ref) }) } },
    audit: ({ body }) =>
      auditEvent('suppression.batch_added', 'suppression', null, { count: body.emails.length, emails: body.emails }),
    handler: async ({ body, caller, services }) => {
      const added = await services.suppressions.addMany(caller.team.id, body.emails);
      return { status: 201, body: { data: added.map((s) => ({ object: 'suppression', id: s.id })) } };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/suppressions/batch/remove',
    operationId: 'batchRemoveSuppressions',
    summary: 'Remove up to 100 suppressions by address or by id',
    tag,
    permission: 'full_access',
    scope: null,
    body: batchRemoveSchema,
    exampleBody: { emails: ['a@example.com'] },
    responses: {
      200: { description: 'The entries removed', schema: z.object({ data: z.array(deletedSchema('suppression')) }) },
    },
    audit: (_ctx, result) =>
      auditEvent('suppression.batch_removed', 'suppression', null, {
        count: (result.body as { data: unknown[] }).data.length,
      }),
    handler: async ({ body, caller, services }) => {
      const removed = await services.suppressions.removeBatch(caller.team.id, body);
      return { status: 200, body: { data: removed.map((s) => ({ object: 'suppression', id: s.id, deleted: true })) } };
    },
  }),
];
