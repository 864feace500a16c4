import type { Clock } from '../../../lib/clock.js';
import type { Team } from '../teams/team.types.js';
import type { Billing, CountEmails } from './billing.types.js';
import { isoDate, utcDayStart, utcMonthLastDay, utcMonthStart } from '../../shared/scheduling/quota-periods.js';

/**
 * Daily volume from which a team's own sending address is worth having: below it an address
 * cannot send enough, every day, to build and keep a reputation with the mailbox providers
 * (about 15,000 emails a month). On this appliance every pool address is the operator's; this is
 * the figure a client shows next to `avg_daily_sends_30d`, not something the appliance sells.
 */
export const DEDICATED_IP_RECOMMENDED_MIN_DAILY = 500;

/** The add-on code the spec names for inbox seats (`POST /billing/checkout` with addon_code). */
export const INBOX_SEAT_CODE = 'inbox_seat';

const DAY_MS = 24 * 60 * 60 * 1000;
const AVERAGE_DAYS = 30;

export type BillingServiceDeps = {
  clock: Clock;
  countEmails: CountEmails;
  /** Members of the team (each has an inbox seat). */
  memberCount: (teamId: string) => Promise<number>;
};

/**
 * GET /billing on a self-hosted appliance. No payment provider exists: the operator assigns plans
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
 */
export class BillingService {
  constructor(private readonly deps: BillingServiceDeps) {}

  async get(team: Team): Promise<Billing> {
    const now = this.deps.clock.now();
    const { plan } = team;
    const { limits } = plan;
    const dayStart = utcDayStart(now);
    const monthStart = utcMonthStart(now);
    const windowStart = new Date(now.getTime() - AVERAGE_DAYS * DAY_MS);
    const count = this.deps.countEmails;
    const [emails, emailsToday, marketingEmails, transactional30d, marketing30d, members] = await Promise.all([
      count(team.id, monthStart, 'transactional'),
      count(team.id, dayStart, 'transactional'),
      count(team.id, monthStart, 'marketing'),
      count(team.id, windowStart, 'transactional'),
      count(team.id, windowStart, 'marketing'),
      this.deps.memberCount(team.id),
    ]);
    return {
      object: 'billing',
      plan: {
        code: plan.code,
        name: plan.name,
        monthly_price_cents: 0,
        included_emails: limits.included_emails,
        overage_per_1000_cents: 0,
      },
      effective_plan_code: plan.code,
      subscription: {
        status: 'none',
        current_period_start: null,
        current_period_end: null,
        invoicing: null,
        latest_invoice_status: null,
        trial_ends_at: null,
      },
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
      payment_method: { present: false, brand: null, last4: null },
      addons: [],
      pending_change: null,
      payment_state: null,
      checkout_available: false,
      paid_plan: plan.code !== 'free',
      storage_addon_purchase: 'unavailable',
      inbox_seats: { code: INBOX_SEAT_CODE, quantity: 0, included: members },
      dedicated_ip: {
        recommended_min_daily: DEDICATED_IP_RECOMMENDED_MIN_DAILY,
        avg_daily_sends_30d: Math.round(((transactional30d + marketing30d) / AVERAGE_DAYS) * 100) / 100,
      },
    };
  }
}
