import type { EndpointWithSecret } from '../../core/events/webhooks/webhook.service.js';
import type { WebhookEndpoint } from '../../core/events/webhooks/webhook.types.js';
import { isoOrNull } from '../../db/dialect.js';

/** List entries: what the SDK's `Webhook` type describes (no secret, no `object`). */
export function serializeWebhookItem(endpoint: WebhookEndpoint) {
  return {
    id: endpoint.id,
    endpoint: endpoint.url,
    created_at: endpoint.createdAt.toISOString(),
    status: endpoint.status,
    events: endpoint.events,
  };
}

/** Retrieve: the SDK's GetWebhookResponseSuccess, with the current signing secret. */
export function serializeWebhook({ endpoint, secret }: EndpointWithSecret) {
  return { object: 'webhook' as const, ...serializeWebhookItem(endpoint), signing_secret: secret };
}

/** Secret retrieval and rotation: the secret, and until when the previous one still signs beside it. */
export function serializeSigningSecret({
  endpoint,
  secret,
  previousExpiresAt,
}: EndpointWithSecret & { previousExpiresAt: Date | null }) {
  return {
    object: 'webhook' as const,
    id: endpoint.id,
    signing_secret: secret,
    previous_signing_secret_expires_at: isoOrNull(previousExpiresAt),
  };
}
