import { isUniqueViolation } from '../../../db/errors.js';
import type { Clock } from '../../../lib/clock.js';
import type { Logger } from '../../../lib/logger.js';
import { findPlan, type Plan } from '../plans/plan.catalog.js';
import type { BillingAccountRepository } from './billing-account.repository.js';
import type { BillingAccount } from './billing-account.types.js';
import type { BillingProvider } from './billing-provider.js';
import type { MeterReport, MeterReportRepository } from './meter-report.repository.js';

/** One category's usage of a team in [from, to): the usage ledger's `total`. */
export type UsageTotal = (teamId: string, category: 'transactional_emails', from: Date, to: Date) => Promise<number>;

export type OverageMeterDeps = {
  clock: Clock;
  logger: Logger;
  provider: BillingProvider;
  accounts: BillingAccountRepository;
  reports: MeterReportRepository;
  usage: UsageTotal;
};

/** Reports are made per hour: the window in each report's identifier. */
export const METER_WINDOW_MS = 60 * 60_000;
/** Accepted reports are kept this long after their period (an audit of what was billed). */
const REPORT_RETENTION_DAYS = 400;

export type MeterRun = { retried: number; reported: number; accepted: number; failed: number };

/**
 * Overage of paid plans, reported to the provider's meter. For each team whose subscription pays
 * for a plan without a monthly cap, the transactional emails of the subscription's current
 * period above the plan's `included_emails` (from the usage ledger), minus what was already
 * reported for that period, is one report: stored `pending` first, under an identifier of team,
 * period and hour window, then sent; `accepted` once the provider answered. A pending report is
 * sent again with the same identifier at the next run (the provider keeps one event per
 * identifier), and a window that has a report gets no second one: an increase is reported once.
 * When a new period has begun, the previous one gets its last report (up to its end) first.
 */
export class OverageMeterService {
  constructor(private readonly deps: OverageMeterDeps) {}

  async run(): Promise<MeterRun> {
    const result: MeterRun = { retried: 0, reported: 0, accepted: 0, failed: 0 };
    const { provider } = this.deps;
    if (!provider.configured || !provider.meters) return result;
    for (const report of await this.deps.reports.pending()) {
      result.retried++;
      await this.send(report, result);
    }
    const now = this.deps.clock.now();
    const window = new Date(Math.floor(now.getTime() / METER_WINDOW_MS) * METER_WINDOW_MS);
    for (const account of await this.deps.accounts.withPlanSubscriptions(provider.name)) {
      const plan = account.planCode ? findPlan(account.planCode) : undefined;
      if (!plan || plan.monthlyCap || !account.currentPeriodStart || !account.currentPeriodEnd) continue;
      const periods = [{ start: account.currentPeriodStart, end: account.currentPeriodEnd }];
      const latest = await this.deps.reports.latest(account.teamId);
      if (latest && latest.periodStart < account.currentPeriodStart)
        periods.unshift({ start: latest.periodStart, end: latest.periodEnd });
      for (const period of periods) {
        const report = await this.newReport(account, plan, period, window, now);
        if (!report) continue;
        result.reported++;
        await this.send(report, result);
      }
    }
    return result;
  }

  /** The period's unreported overage as a pending report, or null (none, or this window has its report). */
  private async newReport(
    account: BillingAccount,
    plan: Plan,
    period: { start: Date; end: Date },
    window: Date,
    now: Date,
  ): Promise<MeterReport | null> {
    const { reports } = this.deps;
    const until = now < period.end ? now : period.end;
    const used = await this.deps.usage(account.teamId, 'transactional_emails', period.start, until);
    const overage = Math.max(0, used - plan.limits.included_emails);
    const increase = overage - (await reports.reportedFor(account.teamId, period.start));
    if (increase <= 0) return null;
    const identifier = `${account.teamId}:${period.start.toISOString()}:${window.toISOString()}`;
    if (await reports.exists(identifier)) return null;
    // The event belongs to the period: at the latest, its last second.
    const eventAt = now < period.end ? now : new Date(period.end.getTime() - 1000);
    try {
      return await reports.insertPending(
        {
          teamId: account.teamId,
          customerId: account.customerId,
          periodStart: period.start,
          periodEnd: period.end,
          windowStart: window,
          identifier,
          quantity: increase,
          eventAt,
        },
        now,
      );
    } catch (err) {
      if (isUniqueViolation(err)) return null;
      throw err;
    }
  }

  private async send(report: MeterReport, result: MeterRun): Promise<void> {
    try {
      await this.deps.provider.reportOverage({
        identifier: report.identifier,
        customerId: report.customerId,
        quantity: report.quantity,
        timestamp: report.eventAt,
      });
      await this.deps.reports.markAccepted(report.id, this.deps.clock.now());
      result.accepted++;
    } catch (err) {
      result.failed++;
      this.deps.logger.warn(
        { err, identifier: report.identifier },
        'overage report not accepted; retried at the next run',
      );
      await this.deps.reports.markFailed(report.id, (err as Error).message ?? String(err));
    }
  }

  async purgeOld(): Promise<number> {
    const cutoff = new Date(this.deps.clock.now().getTime() - REPORT_RETENTION_DAYS * 86_400_000);
    return this.deps.reports.purgeAcceptedBefore(cutoff);
  }
}
