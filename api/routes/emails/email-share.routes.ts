import { z } from 'zod';
import type { Caller } from '../../../core/platform/auth/caller.js';
import { defineRoute } from '../../route.js';
import { uuidParam } from '../../schemas.js';

const tag = 'emails';
const params = z.object({ email_id: uuidParam('Sent or received email id') });

/** Received mail is a full_access resource: a sending key may share only what it sent. */
const readsReceived = (caller: Caller) => caller.apiKey.permission === 'full_access';

/**
 * Share links (the SDK's `emails.share`, OpenAPI `/emails/{email_id}/share`): a public,
 * read-only page of one sent or received email, at /share/{token} on the pages surface.
 * DELETE, which the SDK does not call, revokes every live link of the email at once.
 */
export const emailShareRoutes = [
  defineRoute({
    method: 'POST',
    path: '/emails/:email_id/share',
    operationId: 'shareEmail',
    summary:
      'Create a link that shows the email read-only, without a credential; expires_in like 10m, 2 hours or 1 day (default and maximum 48h)',
    tag,
    permission: 'sending_access',
    scope: 'emails:read',
    params,
    body: z
      .object({
        expires_in: z
          .string()
          .max(64)
          .nullish()
          .describe('How long the link stays valid: 10m, 2 hours, 1 day; default 48h, at most 48h'),
      })
      .strict(),
    exampleBody: { expires_in: '1 day' },
    isolation: { param: 'email_id', resource: 'email' },
    responses: {
      200: {
        description: 'The link, and when it stops working (expires_at: ours, beside the SDK’s fields)',
        schema: z.object({ object: z.literal('email'), id: z.string(), url: z.string(), expires_at: z.string() }),
      },
    },
    handler: async ({ params, body, caller, services }) => {
      const share = await services.emailShares.create(caller.team.id, params.email_id, {
        expiresIn: body.expires_in ?? undefined,
        withReceived: readsReceived(caller),
      });
      return {
        status: 200,
        body: { object: 'email', id: share.emailId, url: share.url, expires_at: share.expiresAt.toISOString() },
      };
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/emails/:email_id/share',
    operationId: 'revokeEmailShares',
    summary: 'Revoke every share link of the email: their pages answer 404 from now on',
    tag,
    permission: 'sending_access',
    scope: 'emails:read',
    params,
    isolation: { param: 'email_id', resource: 'email' },
    responses: {
      200: {
        description: 'The links were revoked (revoked: how many were live)',
        schema: z.object({ object: z.literal('email'), id: z.string(), revoked: z.number() }),
      },
    },
    handler: async ({ params, caller, services }) => {
      const { emailId, revoked } = await services.emailShares.revoke(
        caller.team.id,
        params.email_id,
        readsReceived(caller),
      );
      return { status: 200, body: { object: 'email', id: emailId, revoked } };
    },
  }),
];
