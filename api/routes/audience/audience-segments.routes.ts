import { z } from 'zod';
import { createSegmentSchema, listSegmentsQuerySchema } from '../../../core/audience/segments/segment.schemas.js';
import { publicSegmentItem } from '../../../core/audience/segments/segment.shape.js';
import type { Segment } from '../../../core/audience/segments/segment.types.js';
import { listEnvelope } from '../../../core/shared/pagination/list-query.js';
import { defineRoute } from '../../route.js';
import { deletedSchema, listSchema } from '../../schemas.js';
import { idParam } from './audience-schemas.js';

/**
 * The deprecated `/audiences` resource of Resend's OpenAPI (audiences/create, list, get, remove):
 * an audience is a segment whose members are added by hand (no filter). Each route does what its
 * `/segments` twin does, with the same permission and scope, and answers Resend's audience
 * shapes (`object: 'audience'`). The resend SDK's `audiences` resource calls `/segments` itself;
 * these serve integrations that call the old paths over HTTP.
 */
const tag = 'segments';
const deprecated = 'Deprecated alias of the segment routes: ';

const params = z.object({ audience_id: idParam('Audience (segment)') });
const isolation = { param: 'audience_id', resource: 'segment' };
const item = z.object({ id: z.string(), name: z.string(), created_at: z.string() });
const audienceSchema = item.extend({ object: z.literal('audience') });

/** A segment as Resend's GetAudienceResponseSuccess (no filter: an audience had none). */
function publicAudience(segment: Segment) {
  return { object: 'audience' as const, ...publicSegmentItem(segment) };
}

export const audienceSegmentAliasRoutes = [
  defineRoute({
    method: 'POST',
    path: '/audiences',
    operationId: 'createAudience',
    deprecated: true,
    summary: `${deprecated}create a segment without a filter (members added by hand)`,
    tag,
    permission: 'full_access',
    scope: null,
    body: createSegmentSchema.pick({ name: true }).strict(),
    exampleBody: { name: 'Registered users' },
    responses: {
      201: {
        description: 'Created',
        schema: z.object({ object: z.literal('audience'), id: z.string(), name: z.string() }),
      },
    },
    handler: async ({ body, caller, services }) => {
      const segment = await services.segments.create(caller.team.id, { name: body.name, filter: null });
      return { status: 201, body: { object: 'audience', id: segment.id, name: segment.name } };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/audiences',
    operationId: 'listAudiences',
    deprecated: true,
    summary: `${deprecated}list segments, newest first`,
    tag,
    permission: 'sending_access',
    scope: null,
    query: listSegmentsQuerySchema,
    responses: { 200: { description: 'A page of audiences', schema: listSchema(item) } },
    handler: async ({ query, caller, services }) => {
      const { segments, hasMore } = await services.segments.list(caller.team.id, query);
      return { status: 200, body: listEnvelope(segments.map(publicSegmentItem), hasMore) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/audiences/:audience_id',
    operationId: 'getAudience',
    deprecated: true,
    summary: `${deprecated}retrieve a segment`,
    tag,
    permission: 'sending_access',
    scope: null,
    params,
    isolation,
    responses: { 200: { description: 'The audience', schema: audienceSchema } },
    handler: async ({ params, caller, services }) => ({
      status: 200,
      body: publicAudience(await services.segments.get(caller.team.id, params.audience_id)),
    }),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/audiences/:audience_id',
    operationId: 'deleteAudience',
    deprecated: true,
    summary: `${deprecated}delete a segment`,
    tag,
    permission: 'full_access',
    scope: null,
    params,
    isolation,
    responses: { 200: { description: 'Deleted', schema: deletedSchema('audience') } },
    handler: async ({ params, caller, services }) => {
      const segment = await services.segments.remove(caller.team.id, params.audience_id);
      return { status: 200, body: { object: 'audience', id: segment.id, deleted: true } };
    },
  }),
];
