import type Stripe from 'stripe';

export type CheckoutLine = { price: Stripe.Price; quantity: number };

/** A Checkout Session as Stripe answers POST /v1/checkout/sessions: open, unpaid, hosted. */
export function buildCheckoutSession(input: {
  id: string;
  url: string;
  created: number;
  expiresAt: number;
  mode: 'subscription' | 'payment';
  customer: Stripe.Customer | null;
  customerEmail: string | null;
  lines: CheckoutLine[];
  successUrl: string | null;
  cancelUrl: string | null;
  clientReferenceId: string | null;
  metadata: Record<string, string>;
}): Stripe.Checkout.Session {
  const amount = input.lines.reduce((sum, line) => sum + (line.price.unit_amount ?? 0) * line.quantity, 0);
  const subscription = input.mode === 'subscription';
  return {
    id: input.id,
    object: 'checkout.session',
    adaptive_pricing: { enabled: false },
    after_expiration: null,
    allow_promotion_codes: null,
    // Required by the SDK's type for its API version; Stripe's 2026-08 fixture predates it.
    allowed_payment_method_types: null,
    amount_subtotal: amount,
    amount_total: amount,
    automatic_tax: { enabled: false, liability: null, provider: null, status: null },
    billing_address_collection: null,
    cancel_url: input.cancelUrl,
    client_reference_id: input.clientReferenceId,
    client_secret: null,
    collected_information: null,
    consent: null,
    consent_collection: null,
    created: input.created,
    currency: input.lines[0]?.price.currency ?? null,
    currency_conversion: null,
    custom_fields: [],
    custom_text: { after_submit: null, shipping_address: null, submit: null, terms_of_service_acceptance: null },
    customer: input.customer?.id ?? null,
    customer_account: null,
    customer_creation: input.customer ? null : 'if_required',
    customer_details: input.customerEmail
      ? {
          address: null,
          business_name: null,
          email: input.customerEmail,
          individual_name: null,
          name: null,
          phone: null,
          tax_exempt: 'none',
          tax_ids: null,
        }
      : null,
    customer_email: input.customerEmail,
    discounts: [],
    expires_at: input.expiresAt,
    integration_identifier: null,
    invoice: null,
    invoice_creation: subscription
      ? null
      : {
          enabled: false,
          invoice_data: {
            account_tax_ids: null,
            custom_fields: null,
            description: null,
            footer: null,
            issuer: null,
            metadata: {},
            rendering_options: null,
          },
        },
    livemode: false,
    locale: null,
    managed_payments: null,
    metadata: input.metadata,
    mode: input.mode,
    origin_context: null,
    payment_intent: null,
    payment_link: null,
    payment_method_collection: subscription ? 'always' : null,
    payment_method_configuration_details: null,
    payment_method_options: {},
    payment_method_types: ['card'],
    payment_status: 'unpaid',
    permissions: null,
    phone_number_collection: { enabled: false },
    recovered_from: null,
    saved_payment_method_options: input.customer
      ? { allow_redisplay_filters: ['always'], payment_method_remove: 'disabled', payment_method_save: null }
      : null,
    setup_intent: null,
    shipping_address_collection: null,
    shipping_cost: null,
    shipping_options: [],
    status: 'open',
    submit_type: null,
    subscription: null,
    success_url: input.successUrl,
    total_details: { amount_discount: 0, amount_shipping: 0, amount_tax: 0 },
    ui_mode: 'hosted_page',
    url: input.url,
    wallet_options: null,
  };
}
