import { z } from 'zod';
import type { EmailAttachment } from '../../../core/sending/emails/email.types.js';
import { defineRoute } from '../../route.js';
import { servedFile, signedLinkQuery } from '../../served-file.js';
import { uuidParam } from '../../schemas.js';

const tag = 'emails';
const attachmentSchema = z.object({
  object: z.literal('attachment'),
  id: z.string(),
  filename: z.string().optional(),
  size: z.number(),
  content_type: z.string(),
  content_disposition: z.enum(['inline', 'attachment']),
  content_id: z.string().optional(),
  download_url: z.string(),
  expires_at: z.string(),
});

function serialize({ attachment, link }: { attachment: EmailAttachment; link: { url: string; expiresAt: Date } }) {
  return {
    object: 'attachment' as const,
    id: attachment.id,
    ...(attachment.filename ? { filename: attachment.filename } : {}),
    size: attachment.size,
    content_type: attachment.contentType,
    content_disposition: attachment.contentDisposition,
    ...(attachment.contentId ? { content_id: attachment.contentId } : {}),
    download_url: link.url,
    expires_at: link.expiresAt.toISOString(),
  };
}

export const emailAttachmentRoutes = [
  defineRoute({
    method: 'GET',
    path: '/emails/:email_id/attachments',
    operationId: 'listEmailAttachments',
    summary: 'Attachments of a sent email, with download links valid for an hour',
    tag,
    permission: 'sending_access',
    scope: 'emails:read',
    params: z.object({ email_id: uuidParam('Email id') }),
    isolation: { param: 'email_id', resource: 'email' },
    responses: {
      200: {
        description: 'The attachments',
        schema: z.object({ object: z.literal('list'), has_more: z.boolean(), data: z.array(attachmentSchema) }),
      },
    },
    handler: async ({ params, caller, services }) => {
      const attachments = await services.emails.attachments(caller.team.id, params.email_id);
      // Over quota, attachments are content: 403 email_above_quota (see content-access.ts).
      await services.contentAccess.assertAvailable(caller.team);
      return { status: 200, body: { object: 'list', has_more: false, data: attachments.map(serialize) } };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/emails/:email_id/attachments/:attachment_id',
    operationId: 'getEmailAttachment',
    summary: 'One attachment of a sent email, with a download link valid for an hour',
    tag,
    permission: 'sending_access',
    scope: 'emails:read',
    params: z.object({ email_id: uuidParam('Email id'), attachment_id: uuidParam('Attachment id') }),
    isolation: { param: 'email_id', resource: 'email' },
    responses: { 200: { description: 'The attachment', schema: attachmentSchema } },
    handler: async ({ params, caller, services }) => {
      const attachment = await services.emails.attachment(caller.team.id, params.email_id, params.attachment_id);
      await services.contentAccess.assertAvailable(caller.team);
      return { status: 200, body: serialize(attachment) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/attachments/:attachment_id/download',
    operationId: 'downloadAttachment',
    summary: 'Download through a signed, expiring link (no credential: the signature is the credential)',
    tag,
    permission: 'none',
    scope: null,
    params: z.object({ attachment_id: z.string().max(64) }),
    query: signedLinkQuery,
    responses: { 200: { description: 'The file', contentType: 'application/octet-stream' } },
    handler: async ({ params, query, services }) => {
      const { attachment, bytes } = await services.emails.download(
        params.attachment_id,
        query.expires,
        query.signature,
      );
      // A link minted before the team went over quota stops serving the bytes until it is back under.
      await services.contentAccess.assertAvailable(await services.teams.get(attachment.teamId));
      return servedFile(attachment.filename ?? null, attachment.contentType, bytes);
    },
  }),
];
