import type { WebhookAttempt, WebhookDelivery, WebhookPayload } from '../../core/events/webhooks/webhook.types.js';
import { isoOrNull } from '../../db/dialect.js';

/**
 * An endpoint's deliveries are addressed by event id (the webhook-id header), as the SDK's
 * webhooks.events calls do; `created_at` is when the event happened.
 */
export function serializeWebhookEventItem(delivery: WebhookDelivery) {
  return {
    id: delivery.eventId,
    type: delivery.eventType,
    created_at: delivery.createdAt.toISOString(),
    status: delivery.status,
  };
}

export function serializeWebhookEvent(delivery: WebhookDelivery, payload: WebhookPayload) {
  const open = delivery.status === 'pending' || delivery.status === 'attempting';
  return {
    object: 'webhook_event' as const,
    ...serializeWebhookEventItem(delivery),
    attempts: delivery.attempts,
    next_attempt_at: open ? isoOrNull(delivery.nextAttemptAt) : null,
    payload,
  };
}

/**
 * One attempt as the SDK's WebhookEventAttempt: `http_status_code` is 0 when no HTTP answer
 * came (refused address, connection error, timeout; `error` says which); `response` holds the
 * first bytes of the receiver's answer (webhooks.maxResponseBytes).
 */
export function serializeWebhookAttempt(attempt: WebhookAttempt) {
  return {
    id: attempt.id,
    http_status_code: attempt.statusCode ?? 0,
    response: attempt.response ?? '',
    error: attempt.error,
    duration_ms: attempt.durationMs,
    sent_at: attempt.createdAt.toISOString(),
  };
}
