import type { EventType } from '../log/event.types.js';

export const ENDPOINT_STATUSES = ['enabled', 'disabled'] as const;
export type EndpointStatus = (typeof ENDPOINT_STATUSES)[number];

/** Why an endpoint is disabled: its owner said so, or it failed every attempt for too long. */
export type DisabledReason = 'user' | 'failing';

export type WebhookEndpoint = {
  id: string;
  teamId: string;
  url: string;
  events: EventType[];
  status: EndpointStatus;
  disabledReason: DisabledReason | null;
  secretSealed: string;
  previousSecretSealed: string | null;
  previousSecretExpiresAt: Date | null;
  failingSince: Date | null;
  createdAt: Date;
  updatedAt: Date;
};

/**
 * A delivery's status as the SDK names it: `pending` before the first attempt (or after a
 * replay), `attempting` while retries remain after a failed attempt, then `success` (a 2xx) or
 * `failed` (the retry schedule ran out, or the endpoint was disabled).
 */
export const DELIVERY_STATUSES = ['pending', 'attempting', 'success', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export type WebhookDelivery = {
  id: string;
  teamId: string;
  endpointId: string;
  eventId: string;
  eventType: EventType;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: Date | null;
  leaseOwner: string | null;
  createdAt: Date;
  updatedAt: Date;
};

/** A delivery caused by one email's event, with where it went and how its last attempt ended. */
export type EmailWebhookDelivery = WebhookDelivery & {
  /** null when the endpoint was deleted since. */
  endpointUrl: string | null;
  /** The HTTP status of the most recent attempt; null before any, or when no HTTP answer came. */
  lastStatusCode: number | null;
  lastAttemptAt: Date | null;
};

export type WebhookAttempt = {
  id: string;
  deliveryId: string;
  teamId: string;
  /** null when no HTTP response came back (refused address, connection error, timeout). */
  statusCode: number | null;
  response: string | null;
  error: string | null;
  durationMs: number;
  createdAt: Date;
};

/** The JSON body POSTed to an endpoint (spec: Events). */
export type WebhookPayload = { type: EventType; created_at: string; data: Record<string, unknown> };

/** Operator settings of webhook delivery (config `webhooks`). */
export type WebhookSettings = {
  allowHttp: boolean;
  allowAddresses: string[];
  timeoutMs: number;
  maxResponseBytes: number;
  retrySchedule: number[];
  disableAfterSeconds: number;
  secretGraceSeconds: number;
  leaseMs: number;
  ca?: string;
};
