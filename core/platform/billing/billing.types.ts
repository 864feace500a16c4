import type { PaymentFailure } from './billing-account.types.js';

/**
 * The billing object of GET /billing (spec: "Billing (`object: 'billing'`)"). Plan and usage are
 * always real; subscription, payment method, add-ons, pending change and payment state come from
 * the payment provider's subscription as last read (billing_accounts), and say "none" when there
 * is no provider or no subscription (see billing.service.ts for each choice).
 */
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
    /** `none` (never subscribed) or the provider's status: active, trialing, past_due, unpaid, incomplete, canceled... */
    status: string;
    current_period_start: string | null;
    current_period_end: string | null;
    invoicing: string | null;
    latest_invoice_status: string | null;
    trial_ends_at: string | null;
  };
  usage: {
    /** First day of the calendar month (UTC), YYYY-MM-DD. */
    period_start: string;
    /** Last day of the calendar month (UTC), YYYY-MM-DD, inclusive. */
    period_end: string;
    emails: number;
    included_emails: number;
    emails_today: number;
    /** 00:00 UTC today, when the daily quota last reset (ISO timestamp). */
    day_start: string;
    daily_limit: number | null;
    monthly_limit: number | null;
    marketing_emails: number;
    marketing_included_emails: number;
    marketing_contacts_included: number;
    marketing_addon_code: string | null;
  };
  pay_as_you_go: { enabled: boolean };
  payment_method: { present: boolean; brand: string | null; last4: string | null };
  addons: BillingAddonItem[];
  pending_change: PendingChange | null;
  payment_state: PaymentState | null;
  checkout_available: boolean;
  paid_plan: boolean;
  storage_addon_purchase: 'add_item' | 'checkout' | 'held' | 'unavailable';
  inbox_seats: { code: string; quantity: number; included: number };
  dedicated_ip: { recommended_min_daily: number; avg_daily_sends_30d: number };
};

/** An add-on on the team's subscription. */
export type BillingAddonItem = { code: string; quantity: number };

/** A change already decided that takes effect later: the subscription ends at `effective_at`. */
export type PendingChange = { type: 'cancellation'; effective_at: string; plan_code: string };

/** The latest invoice's payment failed and it is still unpaid; null when payments are fine. */
export type PaymentState = { status: 'failed' } & PaymentFailure;

/** Which quota an email counts against: broadcast emails are marketing, every other one transactional. */
export type EmailMeter = 'transactional' | 'marketing';

/**
 * Emails of a team created at or after `since` on one meter: the very count the daily, monthly
 * and marketing quotas enforce (the sending group's email repository answers; injected so the
 * platform group does not import it).
 */
export type CountEmails = (teamId: string, since: Date, meter: EmailMeter) => Promise<number>;
