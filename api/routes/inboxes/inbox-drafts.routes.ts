import { z } from 'zod';
import { publicDraft, publicDraftItem } from '../../../core/inboxes/inbox-draft.service.js';
import {
  createDraftSchema,
  pageOnlyQuerySchema,
  sendDraftSchema,
  updateDraftSchema,
} from '../../../core/inboxes/inbox.schemas.js';
import { listEnvelope } from '../../../core/shared/pagination/list-query.js';
import { defineRoute } from '../../route.js';
import { deletedSchema, listSchema } from '../../schemas.js';
import { draftItem, draftSchema, inboxParam, isolation, read, ref, sourceOf, tag, write } from './inbox-shapes.js';

const params = z.object({ inbox: inboxParam });
const draftParams = params.extend({ draft_id: z.string().min(1).max(64) });

/** Drafts of an inbox (the SDK's inboxes.drafts): standalone or replies, with files, sent when ready. */
export const inboxDraftRoutes = [
  defineRoute({
    method: 'POST',
    path: '/inboxes/:inbox/drafts',
    operationId: 'createInboxDraft',
    summary:
      'Create a draft (a reply with thread_id and reply_to_email_id); files by content or a path fetched now, 25 MB in all',
    tag,
    permission: 'full_access',
    scope: write,
    idempotent: true,
    params,
    isolation,
    body: createDraftSchema,
    exampleBody: { to: 'customer@example.net', subject: 'Your order', text: 'It ships tomorrow.' },
    responses: { 201: { description: 'Created', schema: ref('inbox_draft') } },
    handler: async ({ params, body, caller, services }) => {
      const inbox = await services.inboxes.resolve(caller.team.id, params.inbox);
      const draft = await services.inboxDrafts.create(inbox, body, sourceOf(caller));
      return { status: 201, body: { object: 'inbox_draft', id: draft.id } };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/inboxes/:inbox/drafts',
    operationId: 'listInboxDrafts',
    summary: 'List unsent drafts, newest first',
    tag,
    permission: 'full_access',
    scope: read,
    params,
    isolation,
    query: pageOnlyQuerySchema,
    responses: { 200: { description: 'A page of drafts', schema: listSchema(draftItem) } },
    handler: async ({ params, query, caller, services }) => {
      const inbox = await services.inboxes.resolve(caller.team.id, params.inbox);
      const { drafts, hasMore } = await services.inboxDrafts.list(inbox, query);
      return { status: 200, body: listEnvelope(drafts.map(publicDraftItem), hasMore) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/inboxes/:inbox/drafts/:draft_id',
    operationId: 'getInboxDraft',
    summary: 'Retrieve a draft with its bodies and files',
    tag,
    permission: 'full_access',
    scope: read,
    params: draftParams,
    isolation,
    responses: { 200: { description: 'The draft', schema: draftSchema } },
    handler: async ({ params, caller, services }) => {
      const inbox = await services.inboxes.resolve(caller.team.id, params.inbox);
      return { status: 200, body: publicDraft(await services.inboxDrafts.find(inbox, params.draft_id)) };
    },
  }),
  defineRoute({
    method: 'PATCH',
    path: '/inboxes/:inbox/drafts/:draft_id',
    operationId: 'updateInboxDraft',
    summary: 'Change a draft; fields not sent stay, attachments sent replace every file ([] or null removes them)',
    tag,
    permission: 'full_access',
    scope: write,
    params: draftParams,
    isolation,
    body: updateDraftSchema,
    exampleBody: { subject: 'Your order, shipped' },
    responses: { 200: { description: 'Updated', schema: ref('inbox_draft') } },
    handler: async ({ params, body, caller, services }) => {
      const inbox = await services.inboxes.resolve(caller.team.id, params.inbox);
      const draft = await services.inboxDrafts.update(inbox, params.draft_id, body, sourceOf(caller));
      return { status: 200, body: { object: 'inbox_draft', id: draft.id } };
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/inboxes/:inbox/drafts/:draft_id',
    operationId: 'deleteInboxDraft',
    summary: 'Delete an unsent draft',
    tag,
    permission: 'full_access',
    scope: write,
    params: draftParams,
    isolation,
    responses: { 200: { description: 'Deleted', schema: deletedSchema('inbox_draft') } },
    handler: async ({ params, caller, services }) => {
      const inbox = await services.inboxes.resolve(caller.team.id, params.inbox);
      const draft = await services.inboxDrafts.remove(inbox, params.draft_id, sourceOf(caller));
      return { status: 200, body: { object: 'inbox_draft', id: draft.id, deleted: true } };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/inboxes/:inbox/drafts/:draft_id/send',
    operationId: 'sendInboxDraft',
    summary: 'Send a draft from the inbox through the ordinary acceptance step; a reply joins its thread',
    tag,
    permission: 'full_access',
    scope: write,
    idempotent: true,
    params: draftParams,
    isolation,
    body: sendDraftSchema.optional(),
    exampleBody: {},
    responses: { 200: { description: 'Accepted (not yet delivered)', schema: z.object({ id: z.string() }) } },
    handler: async ({ params, body, caller, services, unit }) => {
      const inbox = await services.inboxes.resolve(caller.team.id, params.inbox);
      const email = await services.inboxDrafts.send(
        caller,
        inbox,
        params.draft_id,
        body?.headers,
        unit,
        sourceOf(caller),
      );
      return { status: 200, body: { id: email.id }, emailId: email.id };
    },
  }),
];
