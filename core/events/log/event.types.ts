/** Every event type a webhook endpoint may subscribe to (spec: Events). */
export const EVENT_TYPES = [
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
  'domain.created',
  'domain.updated',
  'domain.deleted',
  'suppression.added',
  'suppression.removed',
  'contact.created',
  'contact.updated',
  'contact.deleted',
  'email.received',
  'automation.run.started',
  'automation.run.completed',
  'automation.run.failed',
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
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export type LoggedEvent = {
  id: string;
  teamId: string;
  type: EventType;
  data: Record<string, unknown>;
  createdAt: Date;
};
