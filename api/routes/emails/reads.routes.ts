import { z } from 'zod';
import { listEmailsQuerySchema } from '../../../core/sending/emails/email.schemas.js';
import { listEnvelope } from '../../../core/shared/pagination/list-query.js';
import { defineRoute } from '../../route.js';
import { listSchema, uuidParam } from '../../schemas.js';
import { serializeEmail, serializeEmailItem } from '../../serializers/email.serializer.js';

const tag = 'emails';
const item = z
  .object({
    object: z.literal('email'),
    id: z.string(),
    from: z.string(),
    to: z.array(z.string()),
    subject: z.string(),
    last_event: z.string(),
  })
  .passthrough();

/** GET /emails and GET /emails/{id}. */
export const emailReadRoutes = [
  defineRoute({
    method: 'GET',
    path: '/emails',
    operationId: 'listEmails',
    summary: 'List sent emails, newest first',
    tag,
    permission: 'sending_access',
    scope: 'emails:read',
    query: listEmailsQuerySchema,
    responses: { 200: { description: 'A page of emails', schema: listSchema(item) } },
    handler: async ({ query, caller, services }) => {
      const { emails, hasMore } = await services.emails.list(caller.team.id, query);
      return { status: 200, body: listEnvelope(emails.map(serializeEmailItem), hasMore) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/emails/:email_id',
    operationId: 'getEmail',
    summary: 'Retrieve an email with its bodies and last event',
    tag,
    permission: 'sending_access',
    scope: 'emails:read',
    params: z.object({ email_id: uuidParam('Email id') }),
    isolation: { param: 'email_id', resource: 'email' },
    responses: { 200: { description: 'The email', schema: item } },
    handler: async ({ params, caller, services }) => {
      const { email, bodies } = await services.emails.get(caller.team.id, params.email_id);
      // The bodies are content: over quota this is 403 email_above_quota (GET /emails keeps the metadata).
      await services.contentAccess.assertAvailable(caller.team);
      return { status: 200, body: serializeEmail(email, bodies) };
    },
  }),
];
