import { z } from 'zod';
import { sendEmailSchema } from '../../../core/sending/emails/email.schemas.js';
import { defineRoute } from '../../route.js';

/** POST /emails: one message, accepted durably before the answer. */
export const emailSendRoutes = [
  defineRoute({
    method: 'POST',
    path: '/emails',
    operationId: 'sendEmail',
    summary: 'Accept one message (durably recorded before the answer)',
    tag: 'emails',
    permission: 'sending_access',
    scope: 'emails:send',
    idempotent: true,
    body: sendEmailSchema,
    exampleBody: {
      from: 'Acme <hello@mail.example.com>',
      to: 'someone@example.net',
      subject: 'Hello',
      html: '<p>Hello</p>',
    },
    responses: { 200: { description: 'Accepted (not yet delivered)', schema: z.object({ id: z.string() }) } },
    handler: async ({ body, caller, services, unit }) => {
      // The email's rows join the request's unit: they commit with its log, one durable commit per send.
      const email = await services.emailAcceptance.accept(caller, body, unit);
      return { status: 200, body: { id: email.id }, emailId: email.id };
    },
  }),
];
