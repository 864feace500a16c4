import { z } from 'zod';
import {
  createSegmentSchema,
  listSegmentsQuerySchema,
  previewSegmentSchema,
  updateSegmentSchema,
} from '../../../core/audience/segments/segment.schemas.js';
import {
  publicSegment,
  publicSegmentItem,
  publicSegmentMetrics,
} from '../../../core/audience/segments/segment.shape.js';
import { publicContactItem } from '../../../core/audience/contacts/contact.shape.js';
import { contactPageQuerySchema } from '../../../core/audience/contacts/contact.schemas.js';
import { listEnvelope } from '../../../core/shared/pagination/list-query.js';
import { defineRoute } from '../../route.js';
import { deletedSchema, listSchema } from '../../schemas.js';
import { contactItemSchema, idParam, refSchema } from './audience-schemas.js';

const tag = 'segments';
const params = z.object({ segment_id: idParam('Segment') });
const isolation = { param: 'segment_id', resource: 'segment' };
const item = z.object({ id: z.string(), name: z.string(), created_at: z.string() });
const counts = { contacts: z.number().int(), subscribed: z.number().int(), unsubscribed: z.number().int() };
const exampleFilter = { all: [{ field: 'email', op: 'contains', value: '@example.com' }] };

export const segmentRoutes = [
  defineRoute({
    method: 'POST',
    path: '/segments',
    operationId: 'createSegment',
    summary: 'Create a segment (filter null: members added by hand only)',
    tag,
    permission: 'full_access',
    scope: null,
    body: createSegmentSchema,
    exampleBody: { name: 'Example.com people', filter: exampleFilter },
    responses: { 201: { description: 'Created', schema: refSchema('segment') } },
    handler: async ({ body, caller, services }) => {
      const segment = await services.segments.create(caller.team.id, body);
      return { status: 201, body: { object: 'segment', id: segment.id } };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/segments/preview',
    operationId: 'previewSegment',
    summary: 'Count the contacts a filter selects now',
    tag,
    permission: 'full_access',
    scope: null,
    body: previewSegmentSchema,
    exampleBody: { filter: exampleFilter },
    responses: {
      200: { description: 'Counts', schema: z.object({ object: z.literal('segment_preview'), ...counts }) },
    },
    handler: async ({ body, caller, services }) => ({
      status: 200,
      body: { object: 'segment_preview', ...(await services.segments.preview(caller.team.id, body.filter)) },
    }),
  }),
  defineRoute({
    method: 'GET',
    path: '/segments',
    operationId: 'listSegments',
    summary: 'List segments, newest first (no filter)',
    tag,
    permission: 'sending_access',
    scope: null,
    query: listSegmentsQuerySchema,
    responses: { 200: { description: 'A page of segments', schema: listSchema(item) } },
    handler: async ({ query, caller, services }) => {
      const { segments, hasMore } = await services.segments.list(caller.team.id, query);
      return { status: 200, body: listEnvelope(segments.map(publicSegmentItem), hasMore) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/segments/:segment_id',
    operationId: 'getSegment',
    summary: 'Retrieve a segment with its filter',
    tag,
    permission: 'sending_access',
    scope: null,
    params,
    isolation,
    responses: {
      200: {
        description: 'The segment',
        schema: item.extend({ object: z.literal('segment'), filter: z.record(z.string(), z.unknown()).nullable() }),
      },
    },
    handler: async ({ params, caller, services }) => ({
      status: 200,
      body: publicSegment(await services.segments.get(caller.team.id, params.segment_id)),
    }),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/segments/:segment_id',
    operationId: 'updateSegment',
    summary: 'Rename a segment (its filter never changes)',
    tag,
    permission: 'full_access',
    scope: null,
    params,
    isolation,
    body: updateSegmentSchema,
    exampleBody: { name: 'Renamed segment' },
    responses: { 200: { description: 'Renamed', schema: refSchema('segment') } },
    handler: async ({ params, body, caller, services }) => {
      const segment = await services.segments.rename(caller.team.id, params.segment_id, body);
      return { status: 200, body: { object: 'segment', id: segment.id } };
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/segments/:segment_id',
    operationId: 'deleteSegment',
    summary: 'Delete a segment',
    tag,
    permission: 'full_access',
    scope: null,
    params,
    isolation,
    responses: { 200: { description: 'Deleted', schema: deletedSchema('segment') } },
    handler: async ({ params, caller, services }) => {
      const segment = await services.segments.remove(caller.team.id, params.segment_id);
      return { status: 200, body: { object: 'segment', id: segment.id, deleted: true } };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/segments/:segment_id/contacts',
    operationId: 'listSegmentContacts',
    summary: 'The segment’s members, newest first (before subscription and suppression filtering)',
    tag,
    permission: 'sending_access',
    scope: null,
    params,
    query: contactPageQuerySchema,
    isolation,
    responses: { 200: { description: 'A page of contacts', schema: listSchema(contactItemSchema) } },
    handler: async ({ params, query, caller, services }) => {
      const { contacts, hasMore } = await services.segments.contacts(caller.team.id, params.segment_id, query);
      return { status: 200, body: listEnvelope(contacts.map(publicContactItem), hasMore) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/segments/:segment_id/metrics',
    operationId: 'getSegmentMetrics',
    summary: 'How many contacts the segment holds, subscribed and unsubscribed',
    tag,
    permission: 'sending_access',
    scope: null,
    params,
    isolation,
    responses: {
      200: {
        description: 'Segment metrics',
        schema: z.object({ object: z.literal('segment_metrics'), segment_id: z.string(), ...counts }),
      },
    },
    handler: async ({ params, caller, services }) => {
      const segment = await services.segments.get(caller.team.id, params.segment_id);
      const metrics = await services.segments.metrics(caller.team.id, segment.id);
      return { status: 200, body: publicSegmentMetrics(segment.id, metrics) };
    },
  }),
];
