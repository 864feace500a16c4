import type { LinkResult, RecipientResult } from './broadcast-results.repository.js';
import type { RecipientsQuery } from './broadcast.schemas.js';
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

/**
 * A recipient as the SDK's BroadcastRecipient: `id` is the row's cursor; `contact_id` null once
 * the contact was deleted; `count` for opened and clicked, `clicked_links` for clicked,
 * `bounce_type` for bounced.
 */
export function publicRecipient(type: RecipientsQuery['type'], r: RecipientResult) {
  return {
    id: r.contactId,
    contact_id: r.contactExists ? r.contactId : null,
    email: r.email,
    ...(type === 'opened' ? { count: r.openCount } : {}),
    ...(type === 'clicked' ? { count: r.clickCount, clicked_links: r.clickedLinks } : {}),
    ...(type === 'bounced' ? { bounce_type: r.bounceType ?? 'undetermined' } : {}),
  };
}

export function publicClickedLink(link: LinkResult) {
  return { id: link.linkId, url: link.url, clicks: link.clicks, unique_clicks: link.uniqueClicks };
}
