import { arr, obj, str, type Form } from './form-encoding.js';
import { newId } from './ids-and-time.js';
import { buildCheckoutSession, type CheckoutLine } from './objects/checkout-session.builder.js';
import { allowOnly, email, integer, metadata, oneOf, optionalString, url } from './params.js';
import { invalidRequest, missingParam } from './stripe-errors.js';
import type { CheckoutRecord, StripeStore } from './stripe-store.js';

const DAY = 24 * 3600;

function lineItems(store: StripeStore, value: Form[string] | undefined): CheckoutLine[] {
  if (value === undefined) throw missingParam('line_items');
  const entries = arr(value);
  if (!entries || entries.length === 0) throw invalidRequest('Invalid array', 'line_items');
  return entries.map((entry, i) => {
    const param = `line_items[${i}]`;
    const form = obj(entry);
    if (!form) throw invalidRequest('Invalid object', param);
    allowOnly(form, ['price', 'quantity'], param);
    const priceId = str(form.price);
    if (!priceId) throw missingParam(`${param}[price]`);
    const price = store.price(priceId, `${param}[price]`);
    if (price.recurring?.usage_type === 'metered') {
      if (form.quantity !== undefined) {
        throw invalidRequest(
          `Quantity should not be specified where usage_type is \`metered\`. Remove \`quantity\` from \`${param}\`.`,
          `${param}[quantity]`,
        );
      }
      return { price, quantity: 1 };
    }
    const quantity = integer(form.quantity, `${param}[quantity]`, 1, 999_999);
    if (quantity === undefined) {
      throw invalidRequest(
        `Quantity is required. Add \`quantity\` to \`${param}\``,
        `${param}[quantity]`,
        'parameter_missing',
      );
    }
    return { price, quantity };
  });
}

/** POST /v1/checkout/sessions, validated as Stripe does for the parameters the double models. */
export function createCheckoutSession(store: StripeStore, body: Form): CheckoutRecord {
  allowOnly(body, [
    'mode',
    'customer',
    'customer_email',
    'line_items',
    'success_url',
    'cancel_url',
    'client_reference_id',
    'metadata',
    'subscription_data',
    'expires_at',
    'expand',
  ]);
  const mode = oneOf(body.mode, 'mode', ['payment', 'subscription'] as const);
  if (!mode) throw missingParam('mode');
  const customerId = optionalString(body, 'customer');
  const customerEmail = email(body.customer_email, 'customer_email');
  if (customerId && customerEmail) {
    throw invalidRequest('You may only specify one of these parameters: customer, customer_email.', 'customer');
  }
  const customer = customerId ? store.customer(customerId, 'customer') : null;
  const lines = lineItems(store, body.line_items);
  const recurring = lines.some((line) => line.price.recurring);
  if (mode === 'subscription' && !recurring) {
    throw invalidRequest(
      'You must provide at least one recurring price in `subscription` mode when using prices.',
      'line_items',
    );
  }
  if (mode === 'payment' && recurring) {
    throw invalidRequest(
      'You specified `payment` mode but passed a recurring price. Either switch to `subscription` mode or use only one-time prices.',
      'line_items',
    );
  }
  let subscriptionMetadata: Record<string, string> = {};
  if (body.subscription_data !== undefined) {
    if (mode !== 'subscription')
      throw invalidRequest('You can not pass `subscription_data` in `payment` mode.', 'subscription_data');
    const data = obj(body.subscription_data) ?? {};
    allowOnly(data, ['metadata'], 'subscription_data');
    subscriptionMetadata = metadata(data.metadata, 'subscription_data[metadata]');
  }
  const created = store.now();
  const expiresAt = integer(body.expires_at, 'expires_at', 0) ?? created + DAY;
  if (expiresAt < created + 30 * 60) {
    throw invalidRequest(
      'The `expires_at` timestamp must be at least 30 minutes from Checkout Session creation.',
      'expires_at',
    );
  }
  if (expiresAt > created + DAY) {
    throw invalidRequest(
      'The `expires_at` timestamp must be less than 24 hours from Checkout Session creation.',
      'expires_at',
    );
  }
  const id = newId.checkoutSession();
  const session = buildCheckoutSession({
    id,
    url: `${store.baseUrl()}/checkout/${id}`,
    created,
    expiresAt,
    mode,
    customer,
    customerEmail,
    lines,
    successUrl: url(body.success_url, 'success_url'),
    cancelUrl: url(body.cancel_url, 'cancel_url'),
    clientReferenceId: optionalString(body, 'client_reference_id'),
    metadata: metadata(body.metadata),
  });
  const record = { session, lines, subscriptionMetadata };
  store.checkouts.set(id, record);
  return record;
}
