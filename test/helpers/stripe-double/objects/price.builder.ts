import Stripe from 'stripe';

/** What a test registers with `double.addPrice(...)`: the prices the adapter's configuration names. */
export type PriceInput = {
  id: string;
  unit_amount: number;
  currency?: string;
  /** null or absent: a one-time price. */
  recurring?: {
    interval: 'month' | 'year' | 'week' | 'day';
    interval_count?: number;
    usage_type?: 'licensed' | 'metered';
    /** The billing meter (`mtr_...`) a metered price reads its usage from. */
    meter?: string | null;
  } | null;
  lookup_key?: string | null;
  nickname?: string | null;
  /** The product's name (shown on invoice lines). */
  product: string;
  metadata?: Record<string, string>;
};

export type ProductRecord = { id: string; name: string };

export function buildPrice(input: PriceInput, product: ProductRecord, created: number): Stripe.Price {
  const recurring = input.recurring ?? null;
  return {
    id: input.id,
    object: 'price',
    active: true,
    billing_scheme: 'per_unit',
    created,
    currency: input.currency ?? 'usd',
    custom_unit_amount: null,
    livemode: false,
    lookup_key: input.lookup_key ?? null,
    metadata: input.metadata ?? {},
    nickname: input.nickname ?? null,
    product: product.id,
    recurring: recurring && {
      interval: recurring.interval,
      interval_count: recurring.interval_count ?? 1,
      meter: recurring.meter ?? null,
      trial_period_days: null,
      usage_type: recurring.usage_type ?? 'licensed',
    },
    tax_behavior: 'unspecified',
    tiers_mode: null,
    transform_quantity: null,
    type: recurring ? 'recurring' : 'one_time',
    unit_amount: input.unit_amount,
    unit_amount_decimal: Stripe.Decimal.from(String(input.unit_amount)),
  };
}

/** The legacy `plan` Stripe still puts beside `price` on a subscription item: the same recurring price. */
export function planOf(price: Stripe.Price): Stripe.Plan {
  const recurring = price.recurring;
  if (!recurring) throw new Error(`price ${price.id} is not recurring: it cannot be on a subscription`);
  return {
    id: price.id,
    object: 'plan',
    active: price.active,
    amount: price.unit_amount,
    amount_decimal: price.unit_amount_decimal,
    billing_scheme: price.billing_scheme,
    created: price.created,
    currency: price.currency,
    interval: recurring.interval,
    interval_count: recurring.interval_count,
    livemode: false,
    metadata: {},
    meter: recurring.meter,
    nickname: price.nickname,
    product: price.product,
    tiers_mode: null,
    transform_usage: null,
    trial_period_days: null,
    usage_type: recurring.usage_type,
  };
}
