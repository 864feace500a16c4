/** GET /billing (spec: "Billing (`object: 'billing'`)"), as the billing page reads it. */
export type Billing = {
  object: 'billing';
  plan: {
    code: string;
    name: string;
    monthly_price_cents: number;
    included_emails: number;
    overage_per_1000_cents: number;
  };
  effective_plan_code: string;
  subscription: {
    status: string;
    current_period_start: string | null;
    current_period_end: string | null;
    invoicing: string | null;
    latest_invoice_status: string | null;
    trial_ends_at: string | null;
  };
  payment_method: { present: boolean; brand: string | null; last4: string | null };
  addons: unknown[];
  pending_change: Record<string, unknown> | null;
  payment_state: Record<string, unknown> | null;
  checkout_available: boolean;
  paid_plan: boolean;
  storage_addon_purchase: 'add_item' | 'checkout' | 'held' | 'unavailable';
  inbox_seats: { code: string; quantity: number; included: number };
};

/** GET /billing/plans: the plans a team can be on, with their price where one is sold. */
export type PlanOffer = {
  object: 'plan';
  code: string;
  name: string;
  monthly_price_cents: number | null;
  currency: string | null;
  included_emails: number;
  single_sign_on: boolean;
  purchasable: boolean;
  current: boolean;
};

/** GET /billing/invoices items. */
export type Invoice = {
  id: string;
  number: string | null;
  status: string | null;
  total_cents: number;
  currency: string;
  created_at: string;
  hosted_invoice_url: string | null;
  invoice_pdf: string | null;
};

/** GET /usage (the shape of the resend SDK's usage.get()). */
export type Usage = {
  object: 'usage';
  emails: {
    daily: { used: number; limit: number | null; sent: number; received: number; resets_at: string };
    monthly: { used: number; limit: number; sent: number; received: number; resets_at: string };
  };
  contacts: { used: number; limit: number };
  segments: { used: number; limit: number | null };
  broadcasts: { used: number; limit: null };
  ai_credits: { used: number; limit: number | null; next_increase_at: string | null };
  automation_runs: { used: number; limit: number; resets_at: string };
  domains: { used: number; limit: number | null };
  rate_limit: { limit: number; duration: string };
};

/** The appliance charges through a payment provider (else the operator assigns plans). */
export const billingConnected = (billing: Billing) =>
  billing.checkout_available || billing.subscription.status !== 'none';

export function formatMoney(cents: number, currency: string | null): string {
  return new Intl.NumberFormat(undefined, { style: 'currency', currency: (currency ?? 'usd').toUpperCase() }).format(
    cents / 100,
  );
}
