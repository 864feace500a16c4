import { z } from 'zod';
import { batchBodySchema, batchItemSchema, type SendEmailInput } from '../../../core/sending/emails/email.schemas.js';
import { AppError, ValidationError } from '../../../lib/errors.js';
import { parseInput } from '../../../lib/validation.js';
import { defineRoute } from '../../route.js';

/** Parses one batch item; refusals name the item's index in their paths. */
function parseBatchItem(input: unknown, index: number): SendEmailInput {
  try {
    return parseInput(batchItemSchema, input, 'body');
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    const errors = (err.errors ?? []).map((e) => ({
      path: `${index}${e.path ? `.${e.path}` : ''}`,
      message: e.message,
    }));
    throw new AppError(err.statusCode, err.errorName, `Email ${index}: ${err.message}`, { errors });
  }
}

/** POST /emails/batch: up to 100 messages, strict or permissive. */
export const emailBatchRoutes = [
  defineRoute({
    method: 'POST',
    path: '/emails/batch',
    operationId: 'sendBatch',
    summary:
      'Accept up to 100 emails in one request (one rate-limit token); x-batch-validation strict (default) or permissive',
    tag: 'emails',
    permission: 'sending_access',
    scope: 'emails:send',
    idempotent: true,
    body: batchBodySchema,
    exampleBody: [
      { from: 'Acme <hello@mail.example.com>', to: 'someone@example.net', subject: 'Hello', text: 'Hello' },
    ],
    responses: {
      200: {
        description: 'Accepted ids in order; in permissive mode also the refused indexes',
        schema: z.object({
          data: z.array(z.object({ id: z.string() })),
          errors: z.array(z.object({ index: z.number(), message: z.string() })).optional(),
        }),
      },
    },
    handler: async ({ body, caller, services, headers, unit }) => {
      const raw = headers['x-batch-validation'];
      const mode = raw === undefined ? 'strict' : raw;
      if (mode !== 'strict' && mode !== 'permissive') {
        throw new ValidationError('x-batch-validation must be strict or permissive', {
          errors: [{ path: 'x-batch-validation', message: 'must be strict or permissive' }],
        });
      }
      const result = await services.emailAcceptance.acceptBatch(caller, body, mode, parseBatchItem, unit);
      const data = result.emails.map((email) => ({ id: email.id }));
      return { status: 200, body: mode === 'permissive' ? { data, errors: result.errors } : { data } };
    },
  }),
];
