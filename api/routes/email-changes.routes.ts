import { z } from 'zod';
import { batchBodySchema, batchItemSchema, rescheduleSchema, type SendEmailInput } from '../../core/sending/emails/email.schemas.js';
import { AppError, ValidationError } from '../../lib/errors.js';
import { parseInput } from '../../lib/validation.js';
import { defineRoute } from '../route.js';
import { uuidParam } from '../schemas.js';

const tag = 'emails';
const params = z.object({ email_id: uuidParam('Email id') });
const isolation = { param: 'email_id', resource: 'email' };
const ref = z.object({ object: z.literal('email'), id: z.string() });

/** Parses one batch item; refusals name the item's index in their paths. */
function parseBatchItem(input: unknown, index: number): SendEmailInput {
  try {
    return parseInput(batchItemSchema, input, 'body');
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    const errors = (err.errors ?? []).map((e) => ({ path: `${index}${e.path ? `.${e.path}` : ''}`, message: e.message }));
    throw new AppError(err.statusCode, err.errorName, `Email ${index}: ${err.message}`, { errors });
  }
}

export const emailChangeRoutes = [
  defineRoute({
    method: 'POST',
    path: '/emails/batch',
    operationId: 'sendBatch',
    summary: 'Accept up to 100 emails in one request (one rate-limit token); x-batch-validation strict (default) or permissive',
    tag,
    permission: 'sending_access',
    scope: 'emails:send',
    idempotent: true,
    body: batchBodySchema,
    exampleBody: [{ from: 'Acme <hello@mail.example.com>', to: 'someone@example.net', subject: 'Hello', text: 'Hello' }],
    responses: {
      200: {
        description: 'Accepted ids in order; in permissive mode also the refused indexes',
        schema: z.object({ data: z.array(z.object({ id: z.string() })), errors: z.array(z.object({ index: z.number(), message: z.string() })).optional() }),
      },
    },
    handler: async ({ body, caller, services, headers, unit }) => {
      const raw = headers['x-batch-validation'];
      const mode = raw === undefined ? 'strict' : raw;
      if (mode !== 'strict' && mode !== 'permissive') {
        throw new ValidationError('x-batch-validation must be strict or permissive', { errors: [{ path: 'x-batch-validation', message: 'must be strict or permissive' }] });
      }
      const result = await services.emailAcceptance.acceptBatch(caller, body, mode, parseBatchItem, unit);
      const data = result.emails.map((email) => ({ id: email.id }));
      return { status: 200, body: mode === 'permissive' ? { data, errors: result.errors } : { data } };
    },
  }),
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
    handler: async ({ params, body, caller, services }) => ({ status: 200, body: { object: 'email', id: (await services.emails.reschedule(caller.team.id, params.email_id, body.scheduled_at)).id } }),
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
    handler: async ({ params, caller, services }) => ({ status: 200, body: { object: 'email', id: (await services.emails.cancel(caller.team.id, params.email_id)).id } }),
  }),
];
