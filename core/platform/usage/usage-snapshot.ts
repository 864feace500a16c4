import type { Clock } from '../../../lib/clock.js';
import type { Team } from '../teams/team.types.js';
import { emailCounts, type CountEmails } from './email-counts.js';
import type { UsageCounts } from './usage-counts.js';
import type { UsageLedger } from './usage-ledger.js';
import type { Usage } from './usage-snapshot.types.js';

export type UsageSnapshotDeps = {
  clock: Clock;
  /** The quotas' counter of emails (the sending group's EmailRepository.countSince). */
  countEmails: CountEmails;
  ledger: Pick<UsageLedger, 'totals'>;
  counts: UsageCounts;
  /** The API's request rate per team (api.rateLimitPerSecond): a token bucket refilled each second. */
  rateLimitPerSecond: number;
};

const nextUtcDay = (dayStart: Date) => new Date(dayStart.getTime() + 24 * 60 * 60 * 1000);
const nextUtcMonth = (monthStart: Date) =>
  new Date(Date.UTC(monthStart.getUTCFullYear(), monthStart.getUTCMonth() + 1, 1));

/**
 * GET /usage: one snapshot of what the team's plan counts, each against its limit. Every number
 * is read from the counter its limit reads, so the answer never disagrees with the limits or with
 * GET /billing:
 *
 * - emails: `sent` is the transactional emails of the period (today since 00:00 UTC, this UTC
 *   month), exactly what the daily and monthly quotas count (email-counts.ts, also read by GET
 *   /billing); `received` the received emails kept in the period (the usage ledger). Received
 *   mail does not count against any quota on this appliance, so `used` is `sent`: `limit -
 *   used` is what the quota will still accept. Broadcast emails are on the marketing meter
 *   (GET /billing `usage.marketing_emails`), never here. `daily.limit` is the plan's daily cap
 *   (null when it has none), `monthly.limit` its included emails (a hard cap on the free plan;
 *   on paid plans the allowance before overage);
 * - contacts and domains: the team's current count, against the plan's limit (the same count
 *   the create refusals use); segments: live ones, no limit (none is enforced); broadcasts:
 *   live ones (drafts included), no limit;
 * - ai_credits: credits spent this UTC month (the ledger's `ai_credits`), against the plan's
 *   monthly credits; more are granted at the next month's start (`next_increase_at`);
 * - automation_runs: runs started this UTC month, against the plan's monthly runs (enforced at
 *   enrolment: core/automations/runs/run-limit.ts);
 * - rate_limit: the API's requests per team per second, in the SDK's `duration` form ('1000ms').
 */
export class UsageSnapshot {
  constructor(private readonly deps: UsageSnapshotDeps) {}

  async get(team: Team): Promise<Usage> {
    const { counts, ledger } = this.deps;
    const now = this.deps.clock.now();
    const limits = team.plan.limits;
    const emails = await emailCounts(this.deps.countEmails, team.id, now);
    const { dayStart, monthStart } = emails;
    // The ledger's records run up to now; a range that ends tomorrow takes every one of them.
    const [today, month, contacts, segments, broadcasts, domains, runs] = await Promise.all([
      ledger.totals(team.id, dayStart, nextUtcDay(dayStart)),
      ledger.totals(team.id, monthStart, nextUtcMonth(monthStart)),
      counts.contacts(team.id),
      counts.segments(team.id),
      counts.broadcasts(team.id),
      counts.domains(team.id),
      counts.automationRunsSince(team.id, monthStart),
    ]);
    const monthEnd = nextUtcMonth(monthStart).toISOString();
    return {
      object: 'usage',
      generated_at: now.toISOString(),
      emails: {
        daily: {
          used: emails.transactionalToday,
          limit: limits.daily_cap,
          sent: emails.transactionalToday,
          received: today.received_emails,
          resets_at: nextUtcDay(dayStart).toISOString(),
        },
        monthly: {
          used: emails.transactionalMonth,
          limit: limits.included_emails,
          sent: emails.transactionalMonth,
          received: month.received_emails,
          resets_at: monthEnd,
        },
      },
      contacts: { used: contacts, limit: limits.contact_limit },
      segments: { used: segments, limit: null },
      broadcasts: { used: broadcasts, limit: null },
      ai_credits: { used: month.ai_credits, limit: limits.ai_credits_monthly, next_increase_at: monthEnd },
      automation_runs: { used: runs, limit: limits.automation_runs_monthly, resets_at: monthEnd },
      domains: { used: domains, limit: limits.domain_limit },
      rate_limit: { limit: this.deps.rateLimitPerSecond, duration: '1000ms' },
    };
  }
}
