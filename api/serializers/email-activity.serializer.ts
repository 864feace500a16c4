import type { LoggedEvent } from '../../core/events/log/event.types.js';
import type { EmailWebhookDelivery } from '../../core/events/webhooks/webhook.types.js';
import type { AttemptDetail, DeliveryDetail } from '../../core/sending/deliveries/email-delivery-log.js';
import { isoOrNull } from '../../db/dialect.js';

/**
 * An email's activity for the dashboard's email page: its events (the webhook payload's fields,
 * plus the event id, which is also the webhook-id of its deliveries), its outbound deliveries
 * with their attempts, and the webhook deliveries its events caused.
 */
export function serializeEmailEvent(event: LoggedEvent) {
  return {
    object: 'event' as const,
    id: event.id,
    type: event.type,
    created_at: event.createdAt.toISOString(),
    data: event.data,
  };
}

function serializeAttempt(attempt: AttemptDetail) {
  const view = {
    at: attempt.at.toISOString(),
    outcome: attempt.outcome,
    egress_ip: attempt.egress.ip,
    egress_region: attempt.egress.region,
    egress_helo: attempt.egress.helo,
    mx_host: attempt.mxHost,
    tls: attempt.tls,
    reply: attempt.replyParts && {
      code: attempt.replyParts.code,
      enhanced_code: attempt.replyParts.enhancedCode,
      text: attempt.replyParts.text,
      raw: attempt.replyParts.raw,
    },
    duration_ms: attempt.durationMs,
  };
  return attempt.transcript === undefined ? view : { ...view, transcript: attempt.transcript };
}

export function serializeEmailDelivery({ delivery, attempts }: DeliveryDetail) {
  const waiting = delivery.state === 'queued' || delivery.state === 'deferred';
  return {
    object: 'delivery' as const,
    id: delivery.id,
    recipient: delivery.recipient,
    state: delivery.state,
    attempts: delivery.attempts,
    next_attempt_at: waiting ? delivery.nextAttemptAt.toISOString() : null,
    expires_at: delivery.expiresAt.toISOString(),
    created_at: delivery.createdAt.toISOString(),
    updated_at: delivery.updatedAt.toISOString(),
    attempt_log: attempts.map(serializeAttempt),
  };
}

export function serializeEmailWebhookDelivery(delivery: EmailWebhookDelivery) {
  return {
    object: 'webhook_delivery' as const,
    id: delivery.id,
    webhook_id: delivery.endpointId,
    endpoint: delivery.endpointUrl,
    event_id: delivery.eventId,
    event_type: delivery.eventType,
    status: delivery.status,
    attempts: delivery.attempts,
    last_status_code: delivery.lastStatusCode,
    last_attempt_at: isoOrNull(delivery.lastAttemptAt),
    created_at: delivery.createdAt.toISOString(),
  };
}
