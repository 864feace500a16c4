import { z } from 'zod';
import { rescheduleSchema } from '../../../core/sending/emails/email.schemas.js';
import { defineRoute } from '../../route.js';
import { uuidParam } from '../../schemas.js';

const tag = 'emails';
const params = z.object({ email_id: uuidParam('Email id') });
const isolation = { param: 'email_id', resource: 'email' };
const ref = z.object({ object: z.literal('email'), id: z.string() });

/** PATCH /emails/{id} and POST /emails/{id}/cancel: changes to a scheduled email. */
export const emailChangeRoutes = [
  defineRoute({
    method: 'PATCH',
    path: '/emails/:email_id',
    operationId: 'rescheduleEmail',
    summary: 'Move a scheduled email to another time (409 resource_locked once dispatched)',
    tag,
    permission: 'sending_access',
    scope: 'emails:send',
    params,
    isolation,
    body: rescheduleSchema,
    exampleBody: { scheduled_at: 'in 2 hours' },
    responses: { 200: { description: 'Rescheduled', schema: ref } },
    handler: async ({ params, body, caller, services }) => ({
      status: 200,
      body: {
        object: 'email',
        id: (await services.emails.reschedule(caller.team.id, params.email_id, body.scheduled_at)).id,
      },
    }),
  }),
  defineRoute({
    method: 'POST',
    path: '/emails/:email_id/cancel',
    operationId: 'cancelEmail',
    summary: 'Cancel a scheduled email (409 resource_locked once dispatched)',
    tag,
    permission: 'sending_access',
    scope: 'emails:send',
    params,
    isolation,
    responses: { 200: { description: 'Canceled', schema: ref } },
    handler: async ({ params, caller, services }) => ({
      status: 200,
      body: { object: 'email', id: (await services.emails.cancel(caller.team.id, params.email_id)).id },
    }),
  }),
];
