import { z } from 'zod';
import { defineRoute } from '../route.js';

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
        monthly_price_cents: count.describe('0: nothing is charged through this appliance'),
        included_emails: count,
        overage_per_1000_cents: count.describe('0: overage is not billed by this appliance'),
      })
      .strict(),
    effective_plan_code: z.string(),
    subscription: z
      .object({
        status: z.literal('none').describe('no payment provider: never a subscription'),
        current_period_start: nullableString,
        current_period_end: nullableString,
        invoicing: nullableString,
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
    addons: z.array(z.unknown()),
    pending_change: z.null(),
    payment_state: z.null(),
    checkout_available: z.boolean(),
    paid_plan: z.boolean(),
    storage_addon_purchase: z.enum(['add_item', 'checkout', 'held', 'unavailable']),
    inbox_seats: z
      .object({
        code: z.string(),
        quantity: count.describe('seats bought: none on this appliance'),
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

export const billingRoutes = [
  defineRoute({
    method: 'GET',
    path: '/billing',
    operationId: 'getBilling',
    summary: 'The plan, its usage this month, and subscription and payment (none on this appliance)',
    tag: 'billing',
    permission: 'full_access',
    scope: 'billing:read',
    responses: { 200: { description: 'The billing object', schema: billingSchema } },
    handler: async ({ caller, services }) => ({ status: 200, body: await services.billing.get(caller.team) }),
  }),
];
