import type { Email } from './email.types.js';

/**
 * The `data` every email.* event carries (spec: Events): who, what, when, with tags and headers
 * when the email had them. Per-recipient events (delivery, bounce, complaint) pass the
 * recipients they are about as `to`. A broadcast's emails also carry `broadcast_id` (as the
 * SDK's webhook types do): webhook consumers and the broadcast's results tell them apart by it.
 */
export function emailEventData(email: Email, to: string[] = email.to): Record<string, unknown> {
  return {
    email_id: email.id,
    from: email.fromHeader,
    to,
    subject: email.subject,
    message_id: email.messageId,
    created_at: email.createdAt.toISOString(),
    ...(email.broadcastId ? { broadcast_id: email.broadcastId } : {}),
    ...(email.tags ? { tags: email.tags } : {}),
    ...(email.headers ? { headers: email.headers } : {}),
  };
}
