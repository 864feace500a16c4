/**
 * Shapes of the webhook routes (api/routes/webhooks.routes.ts) as the dashboard reads them, and
 * the event types an endpoint may subscribe to.
 */
export type EndpointStatus = 'enabled' | 'disabled';
export type DeliveryStatus = 'pending' | 'attempting' | 'success' | 'failed';

export type WebhookItem = {
  id: string;
  endpoint: string;
  created_at: string;
  status: EndpointStatus;
  events: string[];
};
export type Webhook = WebhookItem & { object: 'webhook'; signing_secret: string };
export type SigningSecret = {
  object: 'webhook';
  id: string;
  signing_secret: string;
  previous_signing_secret_expires_at: string | null;
};
export type Delivery = { id: string; type: string; created_at: string; status: DeliveryStatus };
export type DeliveryDetail = Delivery & {
  object: 'webhook_event';
  attempts: number;
  next_attempt_at: string | null;
  payload: { type: string; created_at: string; data: Record<string, unknown> };
};
export type Attempt = {
  id: string;
  http_status_code: number;
  response: string;
  error: string | null;
  duration_ms: number;
  sent_at: string;
};

/**
 * The subscribable types, as core/events/log/event.types.ts lists them (the API refuses any
 * other with a 422 naming it, so a type added there and not here is only missing from the form).
 * Grouped the way a person picks them: what happens to sent mail, then the rest.
 */
export const EVENT_GROUPS: { label: string; types: string[] }[] = [
  {
    label: 'Sent email',
    types: [
      'email.sent',
      'email.scheduled',
      'email.delivered',
      'email.delivery_delayed',
      'email.bounced',
      'email.complained',
      'email.opened',
      'email.clicked',
      'email.failed',
      'email.suppressed',
      'email.canceled',
    ],
  },
  { label: 'Received email', types: ['email.received'] },
  { label: 'Domains', types: ['domain.created', 'domain.updated', 'domain.deleted'] },
  { label: 'Suppressions', types: ['suppression.added', 'suppression.removed'] },
  { label: 'Contacts', types: ['contact.created', 'contact.updated', 'contact.deleted'] },
  {
    label: 'Automations',
    types: ['automation.run.started', 'automation.run.completed', 'automation.run.failed'],
  },
  {
    label: 'Inboxes',
    types: [
      'inbox.created',
      'inbox.updated',
      'inbox.deleted',
      'inbox.thread.created',
      'inbox.thread.folder.updated',
      'inbox.thread.assigned',
      'inbox.thread.unassigned',
      'inbox.thread.labels.updated',
      'inbox.email.received',
      'inbox.email.sent',
      'inbox.draft.created',
      'inbox.draft.updated',
      'inbox.draft.sent',
      'inbox.draft.deleted',
    ],
  },
];

/** Deliveries still waiting for an attempt or a retry: the list is refetched while any is. */
export const isOpen = (status: DeliveryStatus) => status === 'pending' || status === 'attempting';
