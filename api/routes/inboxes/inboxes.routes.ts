import { z } from 'zod';
import {
  createInboxSchema,
  pageOnlyQuerySchema,
  updateAgentSchema,
  updateInboxSchema,
} from '../../../core/inboxes/inbox.schemas.js';
import { publicAgent, publicInbox, publicInboxItem } from '../../../core/inboxes/inbox.shape.js';
import { listEnvelope } from '../../../core/shared/pagination/list-query.js';
import { defineRoute } from '../../route.js';
import { deletedSchema, listSchema } from '../../schemas.js';
import {
  agentSchema,
  inboxDetail,
  inboxItem,
  inboxParam,
  isolation,
  read,
  ref,
  sourceOf,
  tag,
  write,
} from './inbox-shapes.js';

const params = z.object({ inbox: inboxParam });

/** Shared inboxes (the SDK's `inboxes`): an address on a receiving domain, and its agent's settings. */
export const inboxRoutes = [
  defineRoute({
    method: 'POST',
    path: '/inboxes',
    operationId: 'createInbox',
    summary: 'Create an inbox at an address on one of the team’s receiving domains',
    tag,
    permission: 'full_access',
    scope: write,
    body: createInboxSchema,
    exampleBody: { email_address: 'support@example.com', name: 'Support', from_name: 'Acme Support' },
    responses: { 201: { description: 'Created', schema: ref('inbox') } },
    handler: async ({ body, caller, services }) => {
      const inbox = await services.inboxes.create(caller.team.id, body, sourceOf(caller));
      return { status: 201, body: { object: 'inbox', id: inbox.id } };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/inboxes',
    operationId: 'listInboxes',
    summary: 'List inboxes, newest first, with their unread threads and last received time',
    tag,
    permission: 'full_access',
    scope: read,
    query: pageOnlyQuerySchema,
    responses: { 200: { description: 'A page of inboxes', schema: listSchema(inboxItem) } },
    handler: async ({ query, caller, services }) => {
      const { inboxes, counts, hasMore } = await services.inboxes.list(caller.team.id, query);
      return {
        status: 200,
        body: listEnvelope(
          inboxes.map((inbox) => publicInboxItem(inbox, counts.get(inbox.id)!)),
          hasMore,
        ),
      };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/inboxes/:inbox',
    operationId: 'getInbox',
    summary: 'Retrieve an inbox by id or by address',
    tag,
    permission: 'full_access',
    scope: read,
    params,
    isolation,
    responses: { 200: { description: 'The inbox', schema: inboxDetail } },
    handler: async ({ params, caller, services }) => {
      const inbox = await services.inboxes.resolve(caller.team.id, params.inbox);
      const [counts, receives] = await Promise.all([services.inboxes.counts(inbox), services.inboxes.receives(inbox)]);
      return { status: 200, body: publicInbox(inbox, counts, receives) };
    },
  }),
  defineRoute({
    method: 'PATCH',
    path: '/inboxes/:inbox',
    operationId: 'updateInbox',
    summary: 'Change an inbox’s name or sender name (the address cannot change)',
    tag,
    permission: 'full_access',
    scope: write,
    params,
    isolation,
    body: updateInboxSchema,
    exampleBody: { name: 'Help desk' },
    responses: { 200: { description: 'Updated', schema: ref('inbox') } },
    handler: async ({ params, body, caller, services }) => {
      const inbox = await services.inboxes.update(caller.team.id, params.inbox, body, sourceOf(caller));
      return { status: 200, body: { object: 'inbox', id: inbox.id } };
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/inboxes/:inbox',
    operationId: 'deleteInbox',
    summary: 'Delete an inbox (its received and sent mail stays in the emails; its address is free again)',
    tag,
    permission: 'full_access',
    scope: write,
    params,
    isolation,
    responses: { 200: { description: 'Deleted', schema: deletedSchema('inbox') } },
    handler: async ({ params, caller, services }) => {
      const inbox = await services.inboxes.remove(caller.team.id, params.inbox, sourceOf(caller));
      return { status: 200, body: { object: 'inbox', id: inbox.id, deleted: true } };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/inboxes/:inbox/agent',
    operationId: 'getInboxAgent',
    summary: 'The inbox agent’s settings: instructions, tone and the actions it may take',
    tag,
    permission: 'full_access',
    scope: read,
    params,
    isolation,
    responses: { 200: { description: 'The settings', schema: agentSchema } },
    handler: async ({ params, caller, services }) => ({
      status: 200,
      body: publicAgent(await services.inboxes.resolve(caller.team.id, params.inbox)),
    }),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/inboxes/:inbox/agent',
    operationId: 'updateInboxAgent',
    summary: 'Change the agent’s instructions, tone or enabled actions (an empty list turns it off)',
    tag,
    permission: 'full_access',
    scope: write,
    params,
    isolation,
    body: updateAgentSchema,
    exampleBody: {
      instructions: 'Label billing questions as Billing.',
      tone: 'concise_professional',
      actions: ['add_labels'],
    },
    responses: { 200: { description: 'Updated', schema: ref('inbox_agent') } },
    handler: async ({ params, body, caller, services }) => {
      const inbox = await services.inboxes.updateAgent(caller.team.id, params.inbox, body);
      return { status: 200, body: { object: 'inbox_agent', id: inbox.id } };
    },
  }),
];
