import type { ReceivedEmail } from './received-email.types.js';

/** The `data` of email.received, as the SDK family's webhook payload carries it. */
export function receivedEventData(email: ReceivedEmail): Record<string, unknown> {
  return {
    email_id: email.id,
    created_at: email.createdAt.toISOString(),
    from: email.from,
    to: email.to,
    cc: email.cc,
    bcc: email.bcc,
    received_for: email.receivedFor,
    message_id: email.messageId,
    subject: email.subject,
    attachments: email.attachments.map((attachment) => ({
      id: attachment.id,
      filename: attachment.filename,
      content_type: attachment.contentType,
      content_disposition: attachment.contentDisposition,
      content_id: attachment.contentId,
    })),
  };
}
