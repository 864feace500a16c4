import { z } from 'zod';
import {
  createTopicSchema,
  listTopicsQuerySchema,
  updateTopicSchema,
} from '../../../core/audience/topics/topic.schemas.js';
import { publicTopic, publicTopicItem } from '../../../core/audience/topics/topic.shape.js';
import { listEnvelope } from '../../../core/shared/pagination/list-query.js';
import { defineRoute } from '../../route.js';
import { deletedSchema, listSchema } from '../../schemas.js';
import { idParam, refSchema } from './audience-schemas.js';

const tag = 'topics';
const params = z.object({ topic_id: idParam('Topic') });
const isolation = { param: 'topic_id', resource: 'topic' };
const item = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  default_subscription: z.enum(['opt_in', 'opt_out']),
  visibility: z.enum(['public', 'private']),
  created_at: z.string(),
});

export const topicRoutes = [
  defineRoute({
    method: 'POST',
    path: '/topics',
    operationId: 'createTopic',
    summary: 'Create a topic (default subscription fixed at creation)',
    tag,
    permission: 'full_access',
    scope: null,
    body: createTopicSchema,
    exampleBody: { name: 'Product news', default_subscription: 'opt_in', visibility: 'public' },
    responses: { 201: { description: 'Created', schema: refSchema('topic') } },
    handler: async ({ body, caller, services }) => {
      const topic = await services.topics.create(caller.team.id, body);
      return { status: 201, body: { object: 'topic', id: topic.id } };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/topics',
    operationId: 'listTopics',
    summary: 'List topics, newest first',
    tag,
    permission: 'sending_access',
    scope: null,
    query: listTopicsQuerySchema,
    responses: { 200: { description: 'A page of topics', schema: listSchema(item) } },
    handler: async ({ query, caller, services }) => {
      const { topics, hasMore } = await services.topics.list(caller.team.id, query);
      return { status: 200, body: listEnvelope(topics.map(publicTopicItem), hasMore) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/topics/:topic_id',
    operationId: 'getTopic',
    summary: 'Retrieve a topic',
    tag,
    permission: 'sending_access',
    scope: null,
    params,
    isolation,
    responses: { 200: { description: 'The topic', schema: item.extend({ object: z.literal('topic') }) } },
    handler: async ({ params, caller, services }) => ({
      status: 200,
      body: publicTopic(await services.topics.get(caller.team.id, params.topic_id)),
    }),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/topics/:topic_id',
    operationId: 'updateTopic',
    summary: 'Rename, describe or change the visibility of a topic',
    tag,
    permission: 'full_access',
    scope: null,
    params,
    isolation,
    body: updateTopicSchema,
    exampleBody: { description: 'Monthly product news' },
    responses: { 200: { description: 'Updated', schema: refSchema('topic') } },
    handler: async ({ params, body, caller, services }) => {
      const topic = await services.topics.update(caller.team.id, params.topic_id, body);
      return { status: 200, body: { object: 'topic', id: topic.id } };
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/topics/:topic_id',
    operationId: 'deleteTopic',
    summary: 'Delete a topic (emails and consent records keep naming it)',
    tag,
    permission: 'full_access',
    scope: null,
    params,
    isolation,
    responses: { 200: { description: 'Deleted', schema: deletedSchema('topic') } },
    handler: async ({ params, caller, services }) => {
      const topic = await services.topics.remove(caller.team.id, params.topic_id);
      return { status: 200, body: { object: 'topic', id: topic.id, deleted: true } };
    },
  }),
];
