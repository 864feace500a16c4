import type Stripe from 'stripe';
import { newId } from '../ids-and-time.js';

/** A Billing Portal session (the portal's default configuration, no deep-link flow). */
export function buildPortalSession(input: {
  id: string;
  url: string;
  created: number;
  customer: string;
  configuration: string;
  returnUrl: string | null;
}): Stripe.BillingPortal.Session {
  return {
    id: input.id,
    object: 'billing_portal.session',
    configuration: input.configuration,
    created: input.created,
    customer: input.customer,
    customer_account: null,
    flow: null,
    livemode: false,
    locale: null,
    on_behalf_of: null,
    return_url: input.returnUrl,
    url: input.url,
  };
}

export function buildMeterEvent(input: {
  created: number;
  eventName: string;
  identifier: string;
  payload: Record<string, string>;
  timestamp: number;
}): Stripe.Billing.MeterEvent {
  return {
    object: 'billing.meter_event',
    created: input.created,
    event_name: input.eventName,
    identifier: input.identifier,
    livemode: false,
    payload: input.payload,
    timestamp: input.timestamp,
  };
}

type EventType = Stripe.Event['type'];
export type EventOf<T extends EventType> = Extract<Stripe.Event, { type: T }>;

/**
 * A webhook event. `object` must already be a snapshot (the state at the time of the event);
 * `request` is the API request that caused it, or null ids for changes made outside the API
 * (a customer paying on the hosted page, a renewal).
 */
export function buildEvent<T extends EventType>(input: {
  type: T;
  created: number;
  apiVersion: string;
  object: EventOf<T>['data']['object'];
  previousAttributes?: Record<string, unknown>;
  request?: { id: string | null; idempotency_key: string | null };
}): EventOf<T> {
  const data: Stripe.Event.Data = { object: input.object as Stripe.Event.Data.Object };
  if (input.previousAttributes)
    data.previous_attributes = input.previousAttributes as Stripe.Event.Data.PreviousAttributes;
  return {
    id: newId.event(),
    object: 'event',
    api_version: input.apiVersion,
    created: input.created,
    data,
    livemode: false,
    pending_webhooks: 1,
    request: input.request ?? { id: null, idempotency_key: null },
    type: input.type,
  } as EventOf<T>;
}
