import type { Clock } from '../../../lib/clock.js';
import type { Team } from '../teams/team.types.js';
import type { Billing, CountEmails } from './billing.types.js';
import { isoDate, utcMonthLastDay } from '../../shared/scheduling/quota-periods.js';
import { emailCounts } from '../usage/email-counts.js';
import { INBOX_SEAT_CODE } from './addon.catalog.js';
import { grantedPlan, hasSubscription, type BillingAccount } from './billing-account.types.js';
import { NoBillingProvider, type BillingProvider } from './billing-provider.js';
import { storagePurchase } from './billing-rules.js';

/**
 * Daily volume from which a team's own sending address is worth having: below it an address
 * cannot send enough, every day, to build and keep a reputation with the mailbox providers
 * (about 15,000 emails a month). On this appliance every pool address is the operator's; this is
 * the figure a client shows next to `avg_daily_sends_30d`, not something the appliance sells.
 */
export const DEDICATED_IP_RECOMMENDED_MIN_DAILY = 500;

export { INBOX_SEAT_CODE };

const DAY_MS = 24 * 60 * 60 * 1000;
const AVERAGE_DAYS = 30;

export type BillingServiceDeps = {
  clock: Clock;
  countEmails: CountEmails;
  /** Members of the team (each has an inbox seat). */
  memberCount: (teamId: string) => Promise<number>;
  /** The payment provider (default: none). */
  provider?: BillingProvider;
  /** The team's account at the provider, if it has one. */
  findAccount?: (teamId: string) => Promise<BillingAccount | undefined>;
};

/**
 * GET /billing. With no payment provider (`billing.provider: none`), the operator assigns plans
 * (`mailroom team set-plan`) and charges, if at all, outside the appliance. So the plan and its
 * usage are real, and everything a payment provider would hold says "nothing":
 *
 * - prices are 0 (`monthly_price_cents`, `overage_per_1000_cents`): nothing is charged through
 *   the appliance; a paid plan's overage is not billed;
 * - `subscription.status` is `none` with every date and invoice field null; `pay_as_you_go` off;
 *   no payment method; no add-ons; no pending change or payment state;
 * - `checkout_available` is false (the spec's "true when the team has no subscription yet"
 *   presumes a provider to check out with) and `storage_addon_purchase` is `unavailable`;
 * - `paid_plan` is true for any plan but `free` (the operator chose it for the team);
 * - `inbox_seats`: none bought (`quantity` 0); every member of the team has one (`included`),
 *   since reading received mail is not limited by seat here;
 * - `dedicated_ip.avg_daily_sends_30d`: every email (transactional and broadcast) the team
 *   created in the last 30 days, divided by 30, to two decimals.
 *
 * Usage counts are the quotas' own counts: `emails` and `emails_today` are what the monthly and
 * daily quotas compare against (transactional emails since the first of the month and since
 * 00:00 UTC), `marketing_emails` what the marketing meter compares against.
 *
 * With a payment provider, what it holds replaces the "nothing"s: the plan's prices are its
 * prices (monthly_price_cents from the plan's price, overage_per_1000_cents from the plan's
 * metered price, 0 when none is configured); `subscription`, `payment_method`, `addons`,
 * `inbox_seats.quantity`, `pending_change` (a cancellation at period end) and `payment_state`
 * (the latest invoice's failed payment) are the subscription as last read from the provider;
 * `checkout_available` is true while the team has no subscription; `storage_addon_purchase`
 * says how storage is bought (billing-rules.ts).
 */
export class BillingService {
  constructor(private readonly deps: BillingServiceDeps) {}

  async get(team: Team): Promise<Billing> {
    const now = this.deps.clock.now();
    const { plan } = team;
    const { limits } = plan;
    const windowStart = new Date(now.getTime() - AVERAGE_DAYS * DAY_MS);
    const count = this.deps.countEmails;
    const provider = this.deps.provider ?? NO_PROVIDER;
    const [account, prices] = provider.configured
      ? await Promise.all([this.deps.findAccount?.(team.id), provider.planPrices(plan.code)])
      : [undefined, { monthlyPriceCents: 0, overagePer1000Cents: 0 }];
    // The same counts GET /usage reports (usage/email-counts.ts): the quotas' own.
    const [counts, transactional30d, marketing30d, members] = await Promise.all([
      emailCounts(count, team.id, now),
      count(team.id, windowStart, 'transactional'),
      count(team.id, windowStart, 'marketing'),
      this.deps.memberCount(team.id),
    ]);
    const { dayStart, monthStart } = counts;
    const emails = counts.transactionalMonth;
    const emailsToday = counts.transactionalToday;
    const marketingEmails = counts.marketingMonth;
    return {
      object: 'billing',
      plan: {
        code: plan.code,
        name: plan.name,
        monthly_price_cents: prices.monthlyPriceCents,
        included_emails: limits.included_emails,
        overage_per_1000_cents: prices.overagePer1000Cents,
      },
      effective_plan_code: plan.code,
      subscription: subscriptionOf(account),
      usage: {
        period_start: isoDate(monthStart),
        period_end: isoDate(utcMonthLastDay(now)),
        emails,
        included_emails: limits.included_emails,
        emails_today: emailsToday,
        day_start: dayStart.toISOString(),
        daily_limit: limits.daily_cap,
        monthly_limit: plan.monthlyCap ? limits.included_emails : null,
        marketing_emails: marketingEmails,
        marketing_included_emails: limits.marketing_emails_included,
        marketing_contacts_included: limits.contact_limit,
        marketing_addon_code: null,
      },
      pay_as_you_go: { enabled: false },
      payment_method: account?.paymentMethod ?? { present: false, brand: null, last4: null },
      addons: addonsOf(account),
      pending_change:
        hasSubscription(account) && account!.cancelAt
          ? {
              type: 'cancellation',
              effective_at: account!.cancelAt.toISOString(),
              plan_code: grantedPlan(account) ? 'free' : plan.code,
            }
          : null,
      payment_state:
        hasSubscription(account) && account!.paymentFailure ? { status: 'failed', ...account!.paymentFailure } : null,
      checkout_available: provider.configured && !hasSubscription(account),
      paid_plan: plan.code !== 'free',
      storage_addon_purchase: storagePurchase(provider, account),
      inbox_seats: {
        code: INBOX_SEAT_CODE,
        quantity: addonsOf(account).find((addon) => addon.code === INBOX_SEAT_CODE)?.quantity ?? 0,
        included: members,
      },
      dedicated_ip: {
        recommended_min_daily: DEDICATED_IP_RECOMMENDED_MIN_DAILY,
        avg_daily_sends_30d: Math.round(((transactional30d + marketing30d) / AVERAGE_DAYS) * 100) / 100,
      },
    };
  }
}

const NO_PROVIDER = new NoBillingProvider();
const iso = (value: Date | null) => (value ? value.toISOString() : null);

function subscriptionOf(account: BillingAccount | undefined): Billing['subscription'] {
  return {
    status: account?.subscriptionId && account.status ? account.status : 'none',
    current_period_start: iso(account?.currentPeriodStart ?? null),
    current_period_end: iso(account?.currentPeriodEnd ?? null),
    invoicing: account?.collectionMethod ?? null,
    latest_invoice_status: account?.latestInvoiceStatus ?? null,
    trial_ends_at: iso(account?.trialEndsAt ?? null),
  };
}

/** Add-ons of a live subscription (an ended one holds none). */
function addonsOf(account: BillingAccount | undefined): Billing['addons'] {
  if (!hasSubscription(account)) return [];
  return account!.items
    .filter((item) => item.kind === 'addon' && item.code !== null)
    .map((item) => ({ code: item.code!, quantity: item.quantity }));
}
