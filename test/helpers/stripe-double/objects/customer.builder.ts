import type Stripe from 'stripe';
import { newId, randomToken } from '../ids-and-time.js';

/** A customer as POST /v1/customers creates it: no address, no payment method, no currency yet. */
export function buildCustomer(input: {
  created: number;
  email: string | null;
  name: string | null;
  description: string | null;
  phone: string | null;
  metadata: Record<string, string>;
}): Stripe.Customer {
  return {
    id: newId.customer(),
    object: 'customer',
    address: null,
    balance: 0,
    created: input.created,
    // Stripe fixes a customer's currency with its first subscription or invoice.
    currency: null,
    default_source: null,
    delinquent: false,
    description: input.description,
    discount: null,
    email: input.email,
    invoice_prefix: randomToken(8).toUpperCase(),
    invoice_settings: {
      custom_fields: null,
      default_payment_method: null,
      footer: null,
      rendering_options: null,
    },
    livemode: false,
    metadata: input.metadata,
    name: input.name,
    next_invoice_sequence: 1,
    phone: input.phone,
    preferred_locales: [],
    shipping: null,
    tax_exempt: 'none',
    test_clock: null,
  };
}

export type CardDetails = { brand?: string; last4?: string; expMonth?: number; expYear?: number };

/** A card payment method, attached to `customer`, as Checkout saves it. */
export function buildCardPaymentMethod(input: {
  created: number;
  customer: Stripe.Customer;
  card: CardDetails;
}): Stripe.PaymentMethod {
  const brand = input.card.brand ?? 'visa';
  const expYear = input.card.expYear ?? new Date(input.created * 1000).getUTCFullYear() + 3;
  return {
    id: newId.paymentMethod(),
    object: 'payment_method',
    allow_redisplay: 'always',
    billing_details: {
      address: { city: null, country: 'US', line1: null, line2: null, postal_code: '94103', state: null },
      email: input.customer.email,
      name: input.customer.name ?? null,
      phone: null,
      tax_id: null,
    },
    card: {
      brand,
      checks: { address_line1_check: null, address_postal_code_check: 'pass', cvc_check: 'pass' },
      country: 'US',
      display_brand: brand,
      exp_month: input.card.expMonth ?? 12,
      exp_year: expYear,
      fingerprint: randomToken(16),
      funding: 'credit',
      generated_from: null,
      last4: input.card.last4 ?? '4242',
      networks: { available: [brand], preferred: null },
      regulated_status: 'unregulated',
      three_d_secure_usage: { supported: true },
      wallet: null,
    },
    created: input.created,
    customer: input.customer.id,
    customer_account: null,
    livemode: false,
    metadata: {},
    type: 'card',
  };
}
