import { z } from 'zod';
import { forwardSchema, pageOnlyQuerySchema, replySchema } from '../../../core/inboxes/inbox.schemas.js';
import { listEnvelope } from '../../../core/shared/pagination/list-query.js';
import { defineRoute } from '../../route.js';
import { listSchema } from '../../schemas.js';
import { inboxParam, isolation, messageSchema, read, sourceOf, tag, write } from './inbox-shapes.js';

const threadParams = z.object({ inbox: inboxParam, thread_id: z.string().min(1).max(64) });
const emailParams = threadParams.extend({ email_id: z.string().min(1).max(64) });
const sent = z.object({ id: z.string() });

/** A thread's emails (the SDK's inboxes.threads.emails): read in order, reply to one, forward one. */
export const inboxEmailRoutes = [
  defineRoute({
    method: 'GET',
    path: '/inboxes/:inbox/threads/:thread_id/emails',
    operationId: 'listInboxThreadEmails',
    summary: 'A thread’s emails, oldest first, with their bodies',
    tag,
    permission: 'full_access',
    scope: read,
    params: threadParams,
    isolation,
    query: pageOnlyQuerySchema,
    responses: { 200: { description: 'A page of emails', schema: listSchema(messageSchema) } },
    handler: async ({ params, query, caller, services }) => {
      const inbox = await services.inboxes.resolve(caller.team.id, params.inbox);
      const { data, hasMore } = await services.inboxThreads.emails(inbox, params.thread_id, query);
      return { status: 200, body: listEnvelope(data, hasMore) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/inboxes/:inbox/threads/:thread_id/emails/:email_id',
    operationId: 'getInboxThreadEmail',
    summary: 'One email of a thread, with its bodies',
    tag,
    permission: 'full_access',
    scope: read,
    params: emailParams,
    isolation,
    responses: { 200: { description: 'The email', schema: messageSchema } },
    handler: async ({ params, caller, services }) => {
      const inbox = await services.inboxes.resolve(caller.team.id, params.inbox);
      return { status: 200, body: await services.inboxThreads.email(inbox, params.thread_id, params.email_id) };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/inboxes/:inbox/threads/:thread_id/emails/:email_id/reply',
    operationId: 'replyInboxThreadEmail',
    summary:
      'Reply from the inbox (to the email’s Reply-To or sender; everyone with reply_all); In-Reply-To, References and Reply-To are set by the inbox',
    tag,
    permission: 'full_access',
    scope: write,
    idempotent: true,
    params: emailParams,
    isolation,
    body: replySchema,
    exampleBody: { text: 'Thanks, we are on it.' },
    responses: { 200: { description: 'Accepted (not yet delivered)', schema: sent } },
    handler: async ({ params, body, caller, services, unit }) => {
      const inbox = await services.inboxes.resolve(caller.team.id, params.inbox);
      const email = await services.inboxSending.reply(
        caller,
        inbox,
        params.thread_id,
        params.email_id,
        body,
        unit,
        sourceOf(caller),
      );
      return { status: 200, body: { id: email.id }, emailId: email.id };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/inboxes/:inbox/threads/:thread_id/emails/:email_id/forward',
    operationId: 'forwardInboxThreadEmail',
    summary: 'Forward an email of a thread with its attachments (it stays in the thread)',
    tag,
    permission: 'full_access',
    scope: write,
    idempotent: true,
    params: emailParams,
    isolation,
    body: forwardSchema,
    exampleBody: { to: 'billing@example.net', text: 'Can you take this one?' },
    responses: { 200: { description: 'Accepted (not yet delivered)', schema: sent } },
    handler: async ({ params, body, caller, services, unit }) => {
      const inbox = await services.inboxes.resolve(caller.team.id, params.inbox);
      const email = await services.inboxSending.forward(
        caller,
        inbox,
        params.thread_id,
        params.email_id,
        body,
        unit,
        sourceOf(caller),
      );
      return { status: 200, body: { id: email.id }, emailId: email.id };
    },
  }),
];
