import { z } from 'zod';
import { MAX_BROADCAST_BODY } from '../../../core/campaigns/broadcasts/broadcast.types.js';
import { defineRoute } from '../../route.js';

const body = z.string().max(MAX_BROADCAST_BODY, `must be at most ${MAX_BROADCAST_BODY} bytes`);

/**
 * POST /broadcasts/{id}/preview: the broadcast as one contact will receive it, rendered by the
 * fan-out's own code (merge values and fallbacks, the hidden preview line, the footer with the
 * unsubscribe link when the body names none). The dashboard editor's live preview sends the
 * unsaved subject and bodies with it. full_access and the write scope: the answer holds the
 * contact's values and signed links, which only someone who may write the broadcast needs.
 */
export const broadcastPreviewRoutes = [
  defineRoute({
    method: 'POST',
    path: '/broadcasts/:broadcast_id/preview',
    operationId: 'previewBroadcast',
    summary: 'Render the broadcast for one contact as it will be sent (nothing is sent or stored)',
    tag: 'broadcasts',
    permission: 'full_access',
    scope: 'broadcasts:write',
    params: z.object({ broadcast_id: z.string().min(1).max(64).describe('Broadcast id') }),
    isolation: { param: 'broadcast_id', resource: 'broadcast' },
    body: z
      .object({
        contact_id: z.string().min(1).max(320).describe('The contact, by id or email address'),
        subject: z.string().min(1).max(998).optional().describe('Render this subject instead of the saved one'),
        preview_text: z.string().max(500).nullable().optional(),
        html: body.nullable().optional(),
        text: body.nullable().optional(),
      })
      .strict(),
    exampleBody: { contact_id: 'ada@example.com' },
    responses: {
      200: {
        description: 'The rendered message',
        schema: z.object({
          object: z.literal('broadcast_preview'),
          broadcast_id: z.string(),
          contact_id: z.string(),
          subject: z.string(),
          html: z.string().nullable(),
          text: z.string().nullable(),
          headers: z.record(z.string(), z.string()),
        }),
      },
    },
    handler: async ({ params, body, caller, services }) => {
      const { contact_id, ...overrides } = body;
      const preview = await services.broadcastPreviewer.render(caller.team, params.broadcast_id, contact_id, overrides);
      return {
        status: 200,
        body: {
          object: 'broadcast_preview',
          broadcast_id: preview.broadcast.id,
          contact_id: preview.contactId,
          subject: preview.subject,
          html: preview.html,
          text: preview.text,
          headers: preview.headers,
        },
      };
    },
  }),
];
