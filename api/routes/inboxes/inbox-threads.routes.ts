import { z } from 'zod';
import {
  addThreadLabelsSchema,
  listThreadsQuerySchema,
  searchThreadsQuerySchema,
  setThreadLabelsSchema,
  updateThreadSchema,
  type ThreadListQuery,
} from '../../../core/inboxes/inbox.schemas.js';
import type { ThreadFilter } from '../../../core/inboxes/inbox-thread.repository.js';
import { threadLabel as publicThreadLabel } from '../../../core/inboxes/inbox.shape.js';
import type { InboxFolder } from '../../../core/inboxes/inbox.types.js';
import { listEnvelope } from '../../../core/shared/pagination/list-query.js';
import { defineRoute } from '../../route.js';
import { deletedSchema, listSchema } from '../../schemas.js';
import {
  inboxParam,
  isolation,
  read,
  sourceOf,
  tag,
  threadAction,
  threadItem,
  threadLabelList,
  threadSummary,
  write,
} from './inbox-shapes.js';

const params = z.object({ inbox: inboxParam });
const threadParams = params.extend({ thread_id: z.string().min(1).max(64) });

const filterOf = (query: Partial<ThreadListQuery>): ThreadFilter => ({
  folders: query.folders as InboxFolder[] | undefined,
  labels: query.labels,
  read: query.read,
  query: query.query,
  from: query.from,
  to: query.to,
  cc: query.cc,
  bcc: query.bcc,
  hasAttachment: query.has_attachment,
  startDate: query.start_date ? new Date(query.start_date) : undefined,
  endDate: query.end_date ? new Date(query.end_date) : undefined,
});

/** Threads of an inbox (the SDK's inboxes.threads and inboxes.threads.labels). */
export const inboxThreadRoutes = [
  defineRoute({
    method: 'GET',
    path: '/inboxes/:inbox/threads',
    operationId: 'listInboxThreads',
    summary: 'List threads by latest activity, newest first (folders, labels and read narrow it)',
    tag,
    permission: 'full_access',
    scope: read,
    params,
    isolation,
    query: listThreadsQuerySchema,
    responses: { 200: { description: 'A page of threads', schema: listSchema(threadItem) } },
    handler: async ({ params, query, caller, services }) => {
      const inbox = await services.inboxes.resolve(caller.team.id, params.inbox);
      const { data, hasMore } = await services.inboxThreads.list(inbox, filterOf(query), query);
      return { status: 200, body: listEnvelope(data, hasMore) };
    },
  }),
  // A literal segment: registered before /threads/:thread_id by the router, whatever the order here.
  defineRoute({
    method: 'GET',
    path: '/inboxes/:inbox/threads/search',
    operationId: 'searchInboxThreads',
    summary:
      'Search threads: words in the subject or addresses, from/to/cc/bcc, attachments and a date range (one email must match all)',
    tag,
    permission: 'full_access',
    scope: read,
    params,
    isolation,
    query: searchThreadsQuerySchema,
    responses: {
      200: {
        description: 'A page of threads, each with the email that matched',
        schema: listSchema(threadItem.extend({ matched_email_id: z.string().nullable() })),
      },
    },
    handler: async ({ params, query, caller, services }) => {
      const inbox = await services.inboxes.resolve(caller.team.id, params.inbox);
      const { data, hasMore } = await services.inboxThreads.list(inbox, filterOf(query), query, true);
      return { status: 200, body: listEnvelope(data, hasMore) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/inboxes/:inbox/threads/:thread_id',
    operationId: 'getInboxThread',
    summary: 'Retrieve a thread: subject, folder, labels, read',
    tag,
    permission: 'full_access',
    scope: read,
    params: threadParams,
    isolation,
    responses: { 200: { description: 'The thread', schema: threadSummary } },
    handler: async ({ params, caller, services }) => {
      const inbox = await services.inboxes.resolve(caller.team.id, params.inbox);
      return { status: 200, body: await services.inboxThreads.summary(inbox, params.thread_id) };
    },
  }),
  defineRoute({
    method: 'PATCH',
    path: '/inboxes/:inbox/threads/:thread_id',
    operationId: 'updateInboxThread',
    summary: 'Mark a thread read or unread, move it to a folder, or assign it to a team member (assignee_email)',
    tag,
    permission: 'full_access',
    scope: write,
    params: threadParams,
    isolation,
    body: updateThreadSchema,
    exampleBody: { folder: 'archive' },
    responses: { 200: { description: 'The thread after the change', schema: threadSummary } },
    handler: async ({ params, body, caller, services }) => {
      const inbox = await services.inboxes.resolve(caller.team.id, params.inbox);
      const actor = { source: sourceOf(caller), userId: caller.member?.userId };
      return { status: 200, body: await services.inboxThreads.update(inbox, params.thread_id, body, actor) };
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/inboxes/:inbox/threads/:thread_id',
    operationId: 'deleteInboxThread',
    summary: 'Delete a thread from the inbox (its emails stay in received and sent mail)',
    tag,
    permission: 'full_access',
    scope: write,
    params: threadParams,
    isolation,
    responses: { 200: { description: 'Deleted', schema: deletedSchema('inbox_thread') } },
    handler: async ({ params, caller, services }) => {
      const inbox = await services.inboxes.resolve(caller.team.id, params.inbox);
      const thread = await services.inboxThreads.remove(inbox, params.thread_id);
      return { status: 200, body: { object: 'inbox_thread', id: thread.id, deleted: true } };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/inboxes/:inbox/threads/:thread_id/actions',
    operationId: 'listInboxThreadActions',
    summary: 'What was done to a thread and why (the agent’s actions with the reasons it gave), oldest first',
    tag,
    permission: 'full_access',
    scope: read,
    params: threadParams,
    isolation,
    responses: {
      200: { description: 'The actions', schema: z.object({ object: z.literal('list'), data: z.array(threadAction) }) },
    },
    handler: async ({ params, caller, services }) => {
      const inbox = await services.inboxes.resolve(caller.team.id, params.inbox);
      const actions = await services.inboxThreads.actions(inbox, params.thread_id);
      return {
        status: 200,
        body: {
          object: 'list',
          data: actions.map((a) => ({
            id: a.id,
            action: a.action,
            source: a.source,
            reason: a.reason,
            detail: a.detail,
            created_at: a.createdAt.toISOString(),
          })),
        },
      };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/inboxes/:inbox/threads/:thread_id/labels',
    operationId: 'addInboxThreadLabels',
    summary: 'Add 1 to 10 of the inbox’s labels to a thread (the others stay)',
    tag,
    permission: 'full_access',
    scope: write,
    params: threadParams,
    isolation,
    body: addThreadLabelsSchema,
    exampleBody: { labels: ['0195f5a2-0000-7000-8000-000000000000'] },
    responses: { 200: { description: 'The thread’s labels', schema: threadLabelList } },
    handler: async ({ params, body, caller, services }) => {
      const inbox = await services.inboxes.resolve(caller.team.id, params.inbox);
      const labels = await services.inboxThreads.changeLabels(
        inbox,
        params.thread_id,
        { add: body.labels },
        sourceOf(caller),
      );
      return { status: 200, body: { object: 'list', data: labels.map(publicThreadLabel) } };
    },
  }),
  defineRoute({
    method: 'PUT',
    path: '/inboxes/:inbox/threads/:thread_id/labels',
    operationId: 'setInboxThreadLabels',
    summary: 'Replace a thread’s labels (an empty list removes them all)',
    tag,
    permission: 'full_access',
    scope: write,
    params: threadParams,
    isolation,
    body: setThreadLabelsSchema,
    exampleBody: { labels: [] },
    responses: { 200: { description: 'The thread’s labels', schema: threadLabelList } },
    handler: async ({ params, body, caller, services }) => {
      const inbox = await services.inboxes.resolve(caller.team.id, params.inbox);
      const labels = await services.inboxThreads.changeLabels(
        inbox,
        params.thread_id,
        { set: body.labels },
        sourceOf(caller),
      );
      return { status: 200, body: { object: 'list', data: labels.map(publicThreadLabel) } };
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/inboxes/:inbox/threads/:thread_id/labels/:label_id',
    operationId: 'removeInboxThreadLabel',
    summary: 'Take one label off a thread',
    tag,
    permission: 'full_access',
    scope: write,
    params: threadParams.extend({ label_id: z.string().min(1).max(64) }),
    isolation,
    responses: { 200: { description: 'The thread’s labels', schema: threadLabelList } },
    handler: async ({ params, caller, services }) => {
      const inbox = await services.inboxes.resolve(caller.team.id, params.inbox);
      const labels = await services.inboxThreads.changeLabels(
        inbox,
        params.thread_id,
        { remove: params.label_id },
        sourceOf(caller),
      );
      return { status: 200, body: { object: 'list', data: labels.map(publicThreadLabel) } };
    },
  }),
];
