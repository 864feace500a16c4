import type { LoggedEvent } from '../log/event.types.js';
import type { WebhookPayload } from './webhook.types.js';

/**
 * The envelope POSTed for an event (spec: Events): its type, when it happened, and `data`
 * exactly as recorded in the events table. The body is serialised the same way on every attempt
 * and replay, so its bytes (and a receiver's dedupe on webhook-id) are stable.
 */
export function payloadOf(event: LoggedEvent): WebhookPayload {
  return { type: event.type, created_at: event.createdAt.toISOString(), data: event.data };
}

export function payloadBody(event: LoggedEvent): string {
  return JSON.stringify(payloadOf(event));
}
