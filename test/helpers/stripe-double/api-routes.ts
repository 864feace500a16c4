import type Stripe from 'stripe';
import { createCheckoutSession } from './checkout-sessions.js';
import { str, type Form } from './form-encoding.js';
import { newId, snapshot } from './ids-and-time.js';
import { buildCustomer } from './objects/customer.builder.js';
import { buildList, page } from './objects/list.builder.js';
import { buildMeterEvent, buildPortalSession } from './objects/small-objects.builder.js';
import { allowOnly, email, expansions, integer, metadata, optionalString, requiredString, url } from './params.js';
import { invalidRequest } from './stripe-errors.js';
import type { RequestRef, StripeStore } from './stripe-store.js';
import { addSubscriptionItem, updateSubscription } from './subscription-changes.js';

export type RouteContext = { params: string[]; query: Form; body: Form; request: RequestRef };
export type Route = { method: 'GET' | 'POST'; path: RegExp; handle: (ctx: RouteContext) => unknown };

type Expander = (object: any, store: StripeStore) => void;

/** The expansions the double answers (the ones the adapter may ask for), per object. */
const CUSTOMER_EXPANSIONS: Record<string, Expander> = {
  'invoice_settings.default_payment_method': (customer: Stripe.Customer, store) => {
    const id = customer.invoice_settings.default_payment_method;
    if (typeof id === 'string') customer.invoice_settings.default_payment_method = snapshot(store.paymentMethod(id));
  },
};
const SUBSCRIPTION_EXPANSIONS: Record<string, Expander> = {
  latest_invoice: (subscription: Stripe.Subscription, store) => {
    if (typeof subscription.latest_invoice === 'string')
      subscription.latest_invoice = snapshot(store.invoice(subscription.latest_invoice));
  },
  default_payment_method: (subscription: Stripe.Subscription, store) => {
    const id = subscription.default_payment_method;
    if (typeof id === 'string') subscription.default_payment_method = snapshot(store.paymentMethod(id));
  },
};

/** A copy of `object` for the answer, with the asked expansions applied (`data.` inside lists). */
function answer<T>(store: StripeStore, object: T, form: Form, allowed: Record<string, Expander>, inList = false): T {
  const copy = snapshot(object);
  for (const path of expansions(form)) {
    const key = inList ? path.replace(/^data\./, '') : path;
    const expand = inList && !path.startsWith('data.') ? undefined : allowed[key];
    if (!expand)
      throw invalidRequest(
        `This property cannot be expanded (${path}). (The Stripe double expands only ${Object.keys(allowed).join(', ') || 'nothing'} here.)`,
        'expand',
      );
    if (inList) for (const item of (copy as { data: unknown[] }).data) expand(item, store);
    else expand(copy, store);
  }
  return copy;
}

function listParams(query: Form): { limit: number; startingAfter: string | undefined } {
  return { limit: integer(query.limit, 'limit', 1, 100) ?? 10, startingAfter: str(query.starting_after) };
}

export function apiRoutes(store: StripeStore): Route[] {
  return [
    {
      method: 'POST',
      path: /^\/v1\/customers$/,
      handle: ({ body }) => {
        allowOnly(body, ['email', 'name', 'description', 'phone', 'metadata', 'expand']);
        const customer = buildCustomer({
          created: store.now(),
          email: email(body.email, 'email'),
          name: optionalString(body, 'name'),
          description: optionalString(body, 'description'),
          phone: optionalString(body, 'phone'),
          metadata: metadata(body.metadata),
        });
        store.customers.set(customer.id, customer);
        return answer(store, customer, body, CUSTOMER_EXPANSIONS);
      },
    },
    {
      method: 'GET',
      path: /^\/v1\/customers\/([^/]+)$/,
      handle: ({ params, query }) => {
        allowOnly(query, ['expand']);
        return answer(store, store.customer(params[0]!), query, CUSTOMER_EXPANSIONS);
      },
    },
    {
      method: 'GET',
      path: /^\/v1\/prices\/([^/]+)$/,
      handle: ({ params, query }) => {
        allowOnly(query, ['expand']);
        return answer(store, store.price(params[0]!), query, {});
      },
    },
    {
      method: 'POST',
      path: /^\/v1\/checkout\/sessions$/,
      handle: ({ body }) => answer(store, createCheckoutSession(store, body).session, body, {}),
    },
    {
      method: 'GET',
      path: /^\/v1\/checkout\/sessions\/([^/]+)$/,
      handle: ({ params, query }) => {
        allowOnly(query, ['expand']);
        return answer(store, store.checkout(params[0]!).session, query, {});
      },
    },
    {
      method: 'POST',
      path: /^\/v1\/billing_portal\/sessions$/,
      handle: ({ body }) => {
        allowOnly(body, ['customer', 'return_url', 'expand']);
        const customer = store.customer(requiredString(body, 'customer'), 'customer');
        const id = newId.portalSession();
        const session = buildPortalSession({
          id,
          url: `${store.baseUrl()}/portal/${id}`,
          created: store.now(),
          customer: customer.id,
          configuration: store.portalConfiguration,
          returnUrl: url(body.return_url, 'return_url'),
        });
        store.portalSessions.set(id, session);
        return answer(store, session, body, {});
      },
    },
    {
      method: 'GET',
      path: /^\/v1\/invoices$/,
      handle: ({ query }) => {
        allowOnly(query, ['customer', 'subscription', 'status', 'limit', 'starting_after', 'expand']);
        const { limit, startingAfter } = listParams(query);
        const customer = str(query.customer);
        const subscription = str(query.subscription);
        const status = str(query.status);
        const all = [...store.invoices.values()]
          .reverse()
          .filter(
            (i) =>
              (!customer || i.customer === customer) &&
              (!subscription || i.subscription === subscription) &&
              (!status || i.status === status),
          );
        const { data, hasMore } = page(all, limit, startingAfter);
        return answer(store, buildList(data, '/v1/invoices', hasMore), query, {}, true);
      },
    },
    {
      method: 'GET',
      path: /^\/v1\/subscriptions$/,
      handle: ({ query }) => {
        allowOnly(query, ['customer', 'status', 'price', 'limit', 'starting_after', 'expand']);
        const { limit, startingAfter } = listParams(query);
        const customer = str(query.customer);
        const price = str(query.price);
        const status = str(query.status);
        // Without `status`, Stripe lists every subscription that is not canceled; `all` lists all.
        const all = [...store.subscriptions.values()]
          .reverse()
          .filter((s) => !customer || s.customer === customer)
          .filter((s) => !price || s.items.data.some((item) => item.price.id === price))
          .filter((s) => (status === 'all' ? true : status ? s.status === status : s.status !== 'canceled'));
        const { data, hasMore } = page(all, limit, startingAfter);
        return answer(store, buildList(data, '/v1/subscriptions', hasMore), query, SUBSCRIPTION_EXPANSIONS, true);
      },
    },
    {
      method: 'GET',
      path: /^\/v1\/subscriptions\/([^/]+)$/,
      handle: ({ params, query }) => {
        allowOnly(query, ['expand']);
        return answer(store, store.subscription(params[0]!), query, SUBSCRIPTION_EXPANSIONS);
      },
    },
    {
      method: 'POST',
      path: /^\/v1\/subscriptions\/([^/]+)$/,
      handle: ({ params, body, request }) =>
        answer(store, updateSubscription(store, params[0]!, body, request), body, SUBSCRIPTION_EXPANSIONS),
    },
    {
      method: 'POST',
      path: /^\/v1\/subscription_items$/,
      handle: ({ body, request }) => answer(store, addSubscriptionItem(store, body, request), body, {}),
    },
    {
      method: 'POST',
      path: /^\/v1\/billing\/meter_events$/,
      handle: ({ body }) => {
        allowOnly(body, ['event_name', 'payload', 'identifier', 'timestamp', 'expand']);
        const eventName = requiredString(body, 'event_name');
        if (body.payload === undefined)
          throw invalidRequest('Missing required param: payload.', 'payload', 'parameter_missing');
        const payload = metadata(body.payload, 'payload');
        const now = store.now();
        const timestamp = integer(body.timestamp, 'timestamp', 0) ?? now;
        if (timestamp < now - 35 * 24 * 3600 || timestamp > now + 5 * 60) {
          throw invalidRequest(
            'The timestamp must be within the past 35 calendar days and no more than 5 minutes in the future.',
            'timestamp',
          );
        }
        const identifier = optionalString(body, 'identifier') ?? newId.meterEventIdentifier();
        // Stripe enforces identifier uniqueness for at least 24 hours; the double, for its lifetime.
        if (store.meterEvents.some((e) => e.identifier === identifier)) {
          throw invalidRequest(`An event already exists with identifier ${identifier}.`);
        }
        const event = buildMeterEvent({ created: now, eventName, identifier, payload, timestamp });
        store.meterEvents.push(event);
        return answer(store, event, body, {});
      },
    },
  ];
}
