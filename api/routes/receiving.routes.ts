import { z } from 'zod';
import { listEnvelope, pageQueryShape, searchParam, withPageRules } from '../../core/shared/pagination/list-query.js';
import { dateOrInstantParam, endNotBeforeStart } from '../../core/shared/pagination/date-filters.js';
import { defineRoute } from '../route.js';
import { servedFile, signedLinkQuery } from '../served-file.js';
import { listSchema, uuidParam } from '../schemas.js';
import {
  serializeReceivedAttachment,
  serializeReceivedEmail,
  serializeReceivedEmailItem,
} from '../serializers/received-email.serializer.js';

const tag = 'receiving';
const nullableStrings = z.array(z.string());
/** content_id is absent (never null) when the part had none. */
const attachmentSummary = z.object({
  id: z.string(),
  filename: z.string().nullable(),
  size: z.number().int(),
  content_type: z.string(),
  content_id: z.string().optional(),
  content_disposition: z.string().nullable(),
});
const receivedItem = z.object({
  id: z.string(),
  to: nullableStrings,
  from: z.string(),
  subject: z.string(),
  message_id: z.string(),
  bcc: nullableStrings,
  cc: nullableStrings,
  reply_to: nullableStrings,
  dropped_reason: z.string().nullable(),
  created_at: z.string(),
  attachments: z.array(attachmentSummary),
});
const receivedDetail = receivedItem.extend({
  object: z.literal('email'),
  received_for: z.array(z.string()),
  html: z.string().nullable(),
  text: z.string().nullable(),
  headers: z.record(z.string(), z.string()).nullable(),
  raw: z.object({ download_url: z.string(), expires_at: z.string() }).nullable(),
  authentication: z
    .object({
      spf: z.string().nullable(),
      dkim: z.array(z.string()),
      dmarc: z.string().nullable(),
      arc: z.string().nullable(),
      header: z.string(),
    })
    .nullable(),
});
/** The attachment routes: the SDK's AttachmentData, filename absent (not null) when the part had none. */
const attachmentSchema = attachmentSummary.extend({
  object: z.literal('attachment'),
  filename: z.string().optional(),
  download_url: z.string(),
  expires_at: z.string(),
});

const listQuery = withPageRules(
  z
    .object({
      ...pageQueryShape,
      search: searchParam(200).optional(),
      start_date: dateOrInstantParam('start').optional(),
      end_date: dateOrInstantParam('end').optional(),
    })
    .strict(),
).superRefine(endNotBeforeStart);

/** Received mail (spec: Received mail; paths and shapes beyond the list as the SDK's emails.receiving expects). */
export const receivingRoutes = [
  defineRoute({
    method: 'GET',
    path: '/emails/receiving',
    operationId: 'listReceivedEmails',
    summary: 'List received emails, newest first',
    tag,
    permission: 'full_access',
    scope: 'emails:read',
    query: listQuery,
    responses: { 200: { description: 'A page of received emails', schema: listSchema(receivedItem) } },
    handler: async ({ query, caller, services }) => {
      const { emails, hasMore } = await services.receivedEmails.list(caller.team.id, query);
      return { status: 200, body: listEnvelope(emails.map(serializeReceivedEmailItem), hasMore) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/emails/receiving/:email_id',
    operationId: 'getReceivedEmail',
    summary: 'Retrieve a received email with its bodies, headers and a link to its raw source',
    tag,
    permission: 'full_access',
    scope: 'emails:read',
    params: z.object({ email_id: uuidParam('Received email id') }),
    query: z.object({ html_format: z.enum(['data_uri', 'cid']).optional() }).strict(),
    isolation: { param: 'email_id', resource: 'received_email' },
    responses: { 200: { description: 'The received email', schema: receivedDetail } },
    handler: async ({ params, query, caller, services }) => {
      const email = await services.receivedEmails.get(caller.team.id, params.email_id, {
        keepCidLinks: query.html_format === 'cid',
      });
      // Content, as for sent emails: over quota this is 403 email_above_quota (the list keeps metadata).
      await services.contentAccess.assertAvailable(caller.team);
      return { status: 200, body: serializeReceivedEmail(email) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/emails/receiving/:email_id/attachments',
    operationId: 'listReceivedEmailAttachments',
    summary: 'Attachments of a received email, with download links valid for an hour',
    tag,
    permission: 'full_access',
    scope: 'emails:read',
    params: z.object({ email_id: uuidParam('Received email id') }),
    query: withPageRules(z.object({ ...pageQueryShape }).strict()),
    isolation: { param: 'email_id', resource: 'received_email' },
    responses: { 200: { description: 'The attachments', schema: listSchema(attachmentSchema) } },
    handler: async ({ params, caller, services }) => {
      const attachments = await services.receivedEmails.attachments(caller.team.id, params.email_id);
      await services.contentAccess.assertAvailable(caller.team);
      return { status: 200, body: listEnvelope(attachments.map(serializeReceivedAttachment), false) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/emails/receiving/:email_id/attachments/:attachment_id',
    operationId: 'getReceivedEmailAttachment',
    summary: 'One attachment of a received email, with a download link valid for an hour',
    tag,
    permission: 'full_access',
    scope: 'emails:read',
    params: z.object({ email_id: uuidParam('Received email id'), attachment_id: uuidParam('Attachment id') }),
    isolation: { param: 'email_id', resource: 'received_email' },
    responses: { 200: { description: 'The attachment', schema: attachmentSchema } },
    handler: async ({ params, caller, services }) => {
      const attachment = await services.receivedEmails.attachment(
        caller.team.id,
        params.email_id,
        params.attachment_id,
      );
      await services.contentAccess.assertAvailable(caller.team);
      return { status: 200, body: serializeReceivedAttachment(attachment) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/emails/receiving/:email_id/raw',
    operationId: 'downloadReceivedEmailRaw',
    summary: 'The raw source of a received email, through a signed, expiring link (the signature is the credential)',
    tag,
    permission: 'none',
    scope: null,
    params: z.object({ email_id: z.string().max(64) }),
    query: signedLinkQuery,
    responses: { 200: { description: 'The message as received', contentType: 'message/rfc822' } },
    handler: async ({ params, query, services }) => {
      const { teamId, bytes } = await services.receivedEmails.downloadRaw(
        params.email_id,
        query.expires,
        query.signature,
      );
      // A link minted before the team went over quota stops serving the bytes until it is back under.
      await services.contentAccess.assertAvailable(await services.teams.get(teamId));
      return servedFile('message.eml', 'message/rfc822', bytes);
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/emails/receiving/:email_id/attachments/:attachment_id/download',
    operationId: 'downloadReceivedEmailAttachment',
    summary: 'Download an attachment of a received email through a signed, expiring link',
    tag,
    permission: 'none',
    scope: null,
    params: z.object({ email_id: z.string().max(64), attachment_id: z.string().max(64) }),
    query: signedLinkQuery,
    responses: { 200: { description: 'The file', contentType: 'application/octet-stream' } },
    handler: async ({ params, query, services }) => {
      const { teamId, attachment, bytes } = await services.receivedEmails.downloadAttachment(
        params.email_id,
        params.attachment_id,
        query.expires,
        query.signature,
      );
      await services.contentAccess.assertAvailable(await services.teams.get(teamId));
      return servedFile(attachment.filename, attachment.contentType, bytes);
    },
  }),
];
