import { z } from 'zod';
import { defineRoute } from '../../api/route.js';
import { newId } from '../../lib/ids.js';

/**
 * Stand-ins for the send routes of a later issue: they take any JSON object, accept an
 * Idempotency-Key, and count their calls, so the platform pieces can be tested on a real route.
 */
export function fakeSendRoute(counter: { calls: number; delayMs?: number }) {
  return defineRoute({
    method: 'POST',
    path: '/test/emails',
    operationId: 'testSend',
    summary: 'test only',
    tag: 'test',
    permission: 'sending_access',
    scope: 'emails:send',
    idempotent: true,
    body: z.record(z.string(), z.unknown()),
    responses: { 200: { description: 'accepted' } },
    handler: async ({ body }) => {
      counter.calls += 1;
      if (counter.delayMs) await new Promise((resolve) => setTimeout(resolve, counter.delayMs));
      if (body.fail === true)
        return { status: 422, body: { statusCode: 422, name: 'validation_error', message: 'asked to fail' } };
      const id = newId();
      return { status: 200, body: { id }, emailId: id };
    },
  });
}
