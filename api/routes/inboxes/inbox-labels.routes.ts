import { z } from 'zod';
import { createLabelSchema, updateLabelSchema } from '../../../core/inboxes/inbox.schemas.js';
import { publicLabel } from '../../../core/inboxes/inbox.shape.js';
import { defineRoute } from '../../route.js';
import { deletedSchema } from '../../schemas.js';
import { inboxParam, isolation, labelSchema, read, ref, tag, write } from './inbox-shapes.js';

const params = z.object({ inbox: inboxParam });
const labelParams = params.extend({ label_id: z.string().min(1).max(64) });

/** An inbox's labels (the SDK's inboxes.labels): a name and a #RRGGBB colour. */
export const inboxLabelRoutes = [
  defineRoute({
    method: 'GET',
    path: '/inboxes/:inbox/labels',
    operationId: 'listInboxLabels',
    summary: 'List the inbox’s labels, oldest first',
    tag,
    permission: 'full_access',
    scope: read,
    params,
    isolation,
    responses: {
      200: { description: 'The labels', schema: z.object({ object: z.literal('list'), data: z.array(labelSchema) }) },
    },
    handler: async ({ params, caller, services }) => {
      const inbox = await services.inboxes.resolve(caller.team.id, params.inbox);
      return { status: 200, body: { object: 'list', data: (await services.inboxLabels.list(inbox)).map(publicLabel) } };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/inboxes/:inbox/labels',
    operationId: 'createInboxLabel',
    summary: 'Create a label (name unique in the inbox; colour #RRGGBB, grey when absent)',
    tag,
    permission: 'full_access',
    scope: write,
    params,
    isolation,
    body: createLabelSchema,
    exampleBody: { name: 'Billing', color: '#E93D82' },
    responses: { 201: { description: 'Created', schema: ref('inbox_label') } },
    handler: async ({ params, body, caller, services }) => {
      const inbox = await services.inboxes.resolve(caller.team.id, params.inbox);
      const label = await services.inboxLabels.create(inbox, body);
      return { status: 201, body: { object: 'inbox_label', id: label.id } };
    },
  }),
  defineRoute({
    method: 'PATCH',
    path: '/inboxes/:inbox/labels/:label_id',
    operationId: 'updateInboxLabel',
    summary: 'Rename a label or change its colour',
    tag,
    permission: 'full_access',
    scope: write,
    params: labelParams,
    isolation,
    body: updateLabelSchema,
    exampleBody: { color: '#3E63DD' },
    responses: { 200: { description: 'Updated', schema: ref('inbox_label') } },
    handler: async ({ params, body, caller, services }) => {
      const inbox = await services.inboxes.resolve(caller.team.id, params.inbox);
      const label = await services.inboxLabels.update(inbox, params.label_id, body);
      return { status: 200, body: { object: 'inbox_label', id: label.id } };
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/inboxes/:inbox/labels/:label_id',
    operationId: 'deleteInboxLabel',
    summary: 'Delete a label (it comes off every thread)',
    tag,
    permission: 'full_access',
    scope: write,
    params: labelParams,
    isolation,
    responses: { 200: { description: 'Deleted', schema: deletedSchema('inbox_label') } },
    handler: async ({ params, caller, services }) => {
      const inbox = await services.inboxes.resolve(caller.team.id, params.inbox);
      const label = await services.inboxLabels.remove(inbox, params.label_id);
      return { status: 200, body: { object: 'inbox_label', id: label.id, deleted: true } };
    },
  }),
];
