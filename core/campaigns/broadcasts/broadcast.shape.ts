import type { Broadcast } from './broadcast.types.js';

/** List items: no content; scheduled_at and sent_at absent until set (spec: never null in list items). */
export function publicBroadcastItem(b: Broadcast) {
  return {
    id: b.id,
    name: b.name,
    segment_id: b.segmentId,
    audience_id: b.segmentId,
    status: b.status,
    created_at: b.createdAt.toISOString(),
    ...(b.scheduledAt ? { scheduled_at: b.scheduledAt.toISOString() } : {}),
    ...(b.sentAt ? { sent_at: b.sentAt.toISOString() } : {}),
  };
}

export function publicBroadcast(b: Broadcast) {
  return {
    object: 'broadcast' as const,
    ...publicBroadcastItem(b),
    topic_id: b.topicId,
    from: b.from,
    subject: b.subject,
    reply_to: b.replyTo.length > 0 ? b.replyTo : null,
    preview_text: b.previewText,
    html: b.html,
    text: b.text,
  };
}
