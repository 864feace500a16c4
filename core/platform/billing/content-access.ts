import type { Clock } from '../../../lib/clock.js';
import { EmailAboveQuotaError } from '../../../lib/errors.js';
import { utcDayStart, utcMonthStart } from '../../shared/scheduling/quota-periods.js';
import type { Team } from '../teams/team.types.js';
import type { CountEmails } from './billing.types.js';

/**
 * How long a team found under its caps is not counted again. The counts scan the month's emails
 * of the team, too much for every read of a big sender; and a team goes above a cap (not just
 * up to it, where sending stops) only by a plan change, which changes the key, not by sending.
 */
const AVAILABLE_TTL_MS = 60_000;
const MAX_CACHED = 10_000;

/** Team, plan (its code and the team row's last change) and UTC day: any of them changing counts afresh. */
const cacheKey = (team: Team, now: Date) =>
  `${team.id}|${team.plan.code}|${team.updatedAt.getTime()}|${utcDayStart(now).getTime()}`;

/**
 * `403 email_above_quota` (spec: "email content unavailable because the team is over quota").
 *
 * A team is over quota when its usage is above (not at) one of its plan's hard caps, counted
 * exactly as the quotas and GET /billing count: transactional emails since 00:00 UTC against
 * the daily cap, transactional emails this month against the free plan's monthly allowance,
 * broadcast emails this month against the marketing allowance. Reaching a cap only stops
 * sending (429); usage goes above a cap when the plan changes to a smaller one (or concurrent
 * sends raced past it). It clears by itself when the period resets, or when the plan changes.
 *
 * Over quota, the team keeps its emails' metadata (GET /emails, reschedule, cancel, events) but
 * not their content: what answers html, text or attachment bytes refuses (see the callers:
 * GET /emails/{id}, the attachment routes, share-link creation and the share page).
 */
export class ContentAccess {
  /** "Available" verdicts by team, plan and day (see `cacheKey`), until the time stored. */
  private readonly available = new Map<string, number>();

  constructor(private readonly deps: { clock: Clock; countEmails: CountEmails }) {}

  /** Which cap the team is above, or null when its content is available. */
  async exceededQuota(team: Team): Promise<'daily' | 'monthly' | 'marketing' | null> {
    const now = this.deps.clock.now();
    const key = cacheKey(team, now);
    if ((this.available.get(key) ?? 0) > now.getTime()) return null;
    const exceeded = await this.count(team, now);
    if (exceeded === null) {
      if (this.available.size >= MAX_CACHED) this.available.clear();
      this.available.set(key, now.getTime() + AVAILABLE_TTL_MS);
    }
    return exceeded;
  }

  private async count(team: Team, now: Date): Promise<'daily' | 'monthly' | 'marketing' | null> {
    const { limits, monthlyCap } = team.plan;
    const count = this.deps.countEmails;
    if (limits.daily_cap !== null && (await count(team.id, utcDayStart(now), 'transactional')) > limits.daily_cap)
      return 'daily';
    const monthStart = utcMonthStart(now);
    if (monthlyCap && (await count(team.id, monthStart, 'transactional')) > limits.included_emails) return 'monthly';
    if ((await count(team.id, monthStart, 'marketing')) > limits.marketing_emails_included) return 'marketing';
    return null;
  }

  async assertAvailable(team: Team): Promise<void> {
    const exceeded = await this.exceededQuota(team);
    if (!exceeded) return;
    const resets = exceeded === 'daily' ? 'at 00:00 UTC' : 'on the first of the month (UTC)';
    throw new EmailAboveQuotaError(
      `Email content is unavailable: the team is above its ${exceeded} quota. It is available again when the quota resets ${resets} or the plan changes`,
    );
  }
}
