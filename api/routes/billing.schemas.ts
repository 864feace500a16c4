import { z } from 'zod';
import { ADDONS } from '../../core/platform/billing/addon.catalog.js';
import { RETURN_PATHS } from '../../core/platform/billing/billing-rules.js';

const nullableString = z.string().nullable();
const count = z.number().int().nonnegative();

/** The billing object (spec: "Billing (`object: 'billing'`)"); see core/platform/billing/billing.service.ts. */
export const billingSchema = z
  .object({
    object: z.literal('billing'),
    plan: z
      .object({
        code: z.string(),
        name: z.string(),
        monthly_price_cents: count.describe("the plan's price at the payment provider; 0 without one"),
        included_emails: count,
        overage_per_1000_cents: count.describe("the plan's metered overage price per 1,000 emails; 0 when not billed"),
      })
      .strict(),
    effective_plan_code: z.string(),
    subscription: z
      .object({
        status: z
          .string()
          .describe(
            '`none` (no subscription ever, or no payment provider) or the provider status: active, trialing, past_due, unpaid, incomplete, incomplete_expired, canceled, paused',
          ),
        current_period_start: nullableString,
        current_period_end: nullableString,
        invoicing: nullableString.describe('how invoices are paid: charge_automatically or send_invoice'),
        latest_invoice_status: nullableString,
        trial_ends_at: nullableString,
      })
      .strict(),
    usage: z
      .object({
        period_start: z.string().describe('first day of the calendar month (UTC), YYYY-MM-DD'),
        period_end: z.string().describe('last day of the calendar month (UTC), YYYY-MM-DD, inclusive'),
        emails: count.describe('transactional emails this month (what the monthly quota counts)'),
        included_emails: count,
        emails_today: count.describe('transactional emails since day_start (what the daily quota counts)'),
        day_start: z.string().describe('00:00 UTC today, when the daily quota resets'),
        daily_limit: count.nullable(),
        monthly_limit: count.nullable(),
        marketing_emails: count.describe('broadcast emails this month (the marketing meter)'),
        marketing_included_emails: count,
        marketing_contacts_included: count,
        marketing_addon_code: nullableString,
      })
      .strict(),
    pay_as_you_go: z.object({ enabled: z.boolean() }).strict(),
    payment_method: z.object({ present: z.boolean(), brand: nullableString, last4: nullableString }).strict(),
    addons: z.array(z.object({ code: z.string(), quantity: count }).strict()).describe("the subscription's add-ons"),
    pending_change: z
      .object({
        type: z.literal('cancellation'),
        effective_at: z.string().describe('when the subscription ends (the end of the period it was cancelled in)'),
        plan_code: z.string().describe('the plan the team has from then on'),
      })
      .strict()
      .nullable(),
    payment_state: z
      .object({
        status: z.literal('failed'),
        invoice_id: z.string(),
        amount_due_cents: count,
        currency: z.string(),
        attempt_count: count,
        next_attempt_at: nullableString.describe('when the provider tries again; null once it stopped'),
      })
      .strict()
      .nullable()
      .describe("the latest invoice's failed payment while it stays unpaid; null when payments are fine"),
    checkout_available: z
      .boolean()
      .describe('true when a payment provider is configured and the team has no subscription'),
    paid_plan: z.boolean(),
    storage_addon_purchase: z.enum(['add_item', 'checkout', 'held', 'unavailable']),
    inbox_seats: z
      .object({
        code: z.string(),
        quantity: count.describe('seats bought (the inbox_seat add-on)'),
        included: count.describe('one per team member'),
      })
      .strict(),
    dedicated_ip: z
      .object({
        recommended_min_daily: count,
        avg_daily_sends_30d: z.number().nonnegative().describe('emails of the last 30 days / 30, two decimals'),
      })
      .strict(),
  })
  .strict();

const addonCode = z
  .string()
  .min(1)
  .max(64)
  .describe(`add-on code: ${ADDONS.map((addon) => addon.code).join(', ')}`);
const planCode = z.string().min(1).max(64).describe('plan code (pro, scale...)');
const quantity = z.number().int().min(1).max(100);

/** POST /billing/checkout: which of plan_code and addon_code, and the return URL, are checked by the service. */
export const checkoutBodySchema = z
  .object({
    plan_code: planCode.optional(),
    addon_code: addonCode.optional(),
    return_url: z
      .string()
      .max(2048)
      .optional()
      .describe('absolute https URL the browser returns to, with checkout=success or checkout=cancelled appended'),
    return_to: z
      .enum(Object.keys(RETURN_PATHS) as [keyof typeof RETURN_PATHS, ...(keyof typeof RETURN_PATHS)[]])
      .optional()
      .describe('dashboard page to return to when no return_url is given (default plan)'),
    quantity: quantity.optional().describe('with addon_code only (default 1); only inbox_seat is sold by unit'),
  })
  .strict();

export const planChangeBodySchema = z.object({ plan_code: planCode }).strict();

export const addonBodySchema = z
  .object({
    addon_code: addonCode,
    quantity: quantity.optional().describe('how many to add (default 1); only inbox_seat is sold by unit'),
  })
  .strict();

export const checkoutSessionSchema = z
  .object({
    object: z.literal('checkout_session'),
    url: z.string(),
    expires_at: z.string().describe('the checkout URL stops working then'),
  })
  .strict();

export const portalSessionSchema = z.object({ object: z.literal('portal_session'), url: z.string() }).strict();

export const invoiceListSchema = z
  .object({
    object: z.literal('list'),
    has_more: z.boolean(),
    data: z.array(
      z
        .object({
          id: z.string(),
          number: nullableString,
          status: nullableString.describe('draft, open, paid, uncollectible or void'),
          total_cents: z.number().int(),
          currency: z.string(),
          created_at: z.string(),
          hosted_invoice_url: nullableString,
          invoice_pdf: nullableString,
        })
        .strict(),
    ),
  })
  .strict();
