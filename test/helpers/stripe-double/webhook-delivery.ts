import Stripe from 'stripe';

export type SignOptions = { secret?: string; timestamp?: number };
export type SignedDelivery = {
  body: string;
  headers: { 'stripe-signature': string; 'content-type': 'application/json' };
};

/**
 * An event as Stripe delivers it: the JSON body (pretty-printed, as Stripe sends it) and a
 * `Stripe-Signature` header made by the SDK's own `generateTestHeaderString`, so the adapter's
 * `stripe.webhooks.constructEvent` checks it exactly as it checks Stripe's.
 */
export function signDelivery(event: Stripe.Event | string, secret: string, timestamp?: number): SignedDelivery {
  const payload = typeof event === 'string' ? event : JSON.stringify(event, null, 2);
  const signature = Stripe.webhooks.generateTestHeaderString({
    payload,
    secret,
    ...(timestamp === undefined ? {} : { timestamp }),
  });
  return { body: payload, headers: { 'stripe-signature': signature, 'content-type': 'application/json' } };
}

/** POSTs a signed delivery to the adapter's webhook endpoint; the Response is the endpoint's answer. */
export async function deliverTo(targetUrl: string, delivery: SignedDelivery): Promise<Response> {
  return fetch(targetUrl, {
    method: 'POST',
    headers: { ...delivery.headers, 'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)' },
    body: delivery.body,
  });
}
