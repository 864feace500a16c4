import type { Link, ReceivedEmailDetail } from '../../core/receiving/received-email.service.js';
import type { ReceivedAttachment, ReceivedEmail } from '../../core/receiving/received-email.types.js';

/**
 * An attachment inside a received email (list rows and retrieve). content_id is absent, never
 * null, when the part had no Content-ID: Resend's received-email schema types it as a string and
 * omits it (filename and content_disposition are nullable there, and stay null).
 */
const attachmentSummary = (attachment: ReceivedAttachment) => ({
  id: attachment.id,
  filename: attachment.filename,
  size: attachment.size,
  content_type: attachment.contentType,
  ...(attachment.contentId ? { content_id: attachment.contentId } : {}),
  content_disposition: attachment.contentDisposition,
});

/** A list row: no html, text, headers or received_for (spec: Received email). */
export function serializeReceivedEmailItem(email: ReceivedEmail) {
  return {
    id: email.id,
    to: email.to,
    from: email.from,
    subject: email.subject,
    message_id: email.messageId,
    bcc: email.bcc,
    cc: email.cc,
    reply_to: email.replyTo,
    dropped_reason: email.droppedReason,
    created_at: email.createdAt.toISOString(),
    attachments: email.attachments.map(attachmentSummary),
  };
}

export function serializeReceivedEmail(detail: ReceivedEmailDetail) {
  return {
    object: 'email' as const,
    ...serializeReceivedEmailItem(detail.email),
    received_for: detail.email.receivedFor,
    html: detail.html,
    text: detail.text,
    headers: detail.headers,
    raw: detail.raw ? { download_url: detail.raw.url, expires_at: detail.raw.expiresAt.toISOString() } : null,
    authentication: detail.email.authentication
      ? {
          spf: detail.email.authentication.spf,
          dkim: detail.email.authentication.dkim,
          dmarc: detail.email.authentication.dmarc,
          arc: detail.email.authentication.arc,
          header: detail.email.authentication.header,
        }
      : null,
  };
}

/**
 * GET /emails/receiving/{id}/attachments[/{id}]: the SDK's AttachmentData, where filename and
 * content_id are optional (`filename?: string`, `content_id?: string`): absent when there is none.
 */
export function serializeReceivedAttachment({ attachment, link }: { attachment: ReceivedAttachment; link: Link }) {
  const { id, filename, ...summary } = attachmentSummary(attachment);
  return {
    object: 'attachment' as const,
    id,
    ...(filename ? { filename } : {}),
    ...summary,
    download_url: link.url,
    expires_at: link.expiresAt.toISOString(),
  };
}
