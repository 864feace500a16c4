import type { Email, EmailBodies } from '../../core/sending/emails/email.types.js';
import { isoOrNull } from '../../db/dialect.js';

const tagList = (tags: Record<string, string> | null) =>
  tags ? Object.entries(tags).map(([name, value]) => ({ name, value })) : undefined;

export function serializeEmailItem(email: Email) {
  return {
    object: 'email' as const,
    id: email.id,
    from: email.fromHeader,
    to: email.to,
    cc: email.cc,
    bcc: email.bcc,
    reply_to: email.replyTo,
    subject: email.subject,
    message_id: email.messageId,
    last_event: email.lastEvent,
    scheduled_at: isoOrNull(email.scheduledAt),
    created_at: email.createdAt.toISOString(),
    tags: tagList(email.tags),
    topic_id: email.topicId,
  };
}

export function serializeEmail(email: Email, bodies: EmailBodies) {
  return {
    ...serializeEmailItem(email),
    html: bodies.html,
    text: bodies.text,
    template_id: email.templateId,
    template_version_id: email.templateVersionId,
  };
}
