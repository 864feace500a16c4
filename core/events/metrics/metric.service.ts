import type { Knex } from 'knex';
import type { Clock } from '../../../lib/clock.js';
import { InvalidParameterError } from '../../../lib/errors.js';
import { purgeByPlanRetention } from '../../platform/retention/plan-retention.js';
import { purgeBucketsByPlanRetention } from './metric-retention.js';
import { resolveRange } from './metric-dates.js';
import { groupRows, pickMetrics, sumCounts, toRows } from './metric-report.js';
import { MetricRepository, type GroupColumn } from './metric.repository.js';
import { MetricsRollup, type RollupResult } from './metric-rollup.js';
import { zeroCounts, type Dimension, type MetricsQuery, type MetricsReport } from './metric.types.js';

const GROUP_COLUMNS: Record<Dimension, GroupColumn> = {
  period: 'minute',
  domain: 'domain_id',
  email: 'email_id',
  broadcast: 'broadcast_id',
};

/**
 * GET /emails/metrics: reports over the one-minute buckets the roll-up fills from events, and
 * the roll-up and retention the scheduler runs.
 */
export class MetricsService {
  readonly rollup: MetricsRollup;
  private readonly repository: MetricRepository;

  constructor(private readonly deps: { knex: Knex; clock: Clock; settleMs?: number }) {
    this.rollup = new MetricsRollup({ knex: deps.knex, clock: deps.clock, settleMs: deps.settleMs });
    this.repository = this.rollup.repository;
  }

  /** A team's report; the plan's retention window bounds how far back it reaches. */
  async report(
    team: { id: string; plan: { limits: { retention_days: number } } },
    query: MetricsQuery,
  ): Promise<MetricsReport> {
    const teamId = team.id;
    const now = this.deps.clock.now().getTime();
    const range = resolveRange(query, now, now - team.plan.limits.retention_days * 86_400_000);
    if (!range)
      throw new InvalidParameterError('start_date is after end_date', {
        errors: [{ path: 'start_date', message: 'is after end_date' }],
      });
    const filter = {
      teamId,
      start: new Date(range.start),
      end: new Date(range.end),
      domainIds: query.domainIds,
      emailIds: query.emailIds,
      broadcastIds: query.broadcastIds,
    };
    const [rows, state] = await Promise.all([
      this.repository.aggregate(
        filter,
        query.dimensions.map((d) => GROUP_COLUMNS[d]),
      ),
      this.repository.readState(),
    ]);
    const totals = rows.reduce((sum, row) => sumCounts(sum, row.counts), zeroCounts());
    const report: MetricsReport = {
      start: filter.start,
      end: filter.end,
      metrics: query.metrics,
      dimensions: query.dimensions,
      granularity: query.granularity,
      totals: pickMetrics(query.metrics, totals),
      dataAsOf: state?.completedUntil ?? null,
    };
    if (query.dimensions.length === 0) return report;
    const groups = groupRows(rows, { ...query, ...range });
    const domainIds = [...new Set(groups.map((g) => g.domainId).filter((id): id is string => !!id))];
    const broadcastIds = [...new Set(groups.map((g) => g.broadcastId).filter((id): id is string => !!id))];
    const names = {
      domains: query.dimensions.includes('domain')
        ? await this.repository.domainNames(teamId, domainIds)
        : new Map<string, string>(),
      broadcasts: await this.repository.broadcastNames(teamId, broadcastIds),
    };
    return { ...report, data: toRows(groups, query.metrics, names) };
  }

  /** The scheduler's every-minute job. */
  rollUp(options: { until?: Date } = {}): Promise<RollupResult> {
    return this.rollup.run(options);
  }

  /** Buckets and first-seen rows are kept for the team plan's retention window. */
  async purgeExpired(batch = 1000): Promise<{ buckets: number; firstSeen: number }> {
    const now = this.deps.clock.now();
    return {
      buckets: await purgeBucketsByPlanRetention(this.deps.knex, now, batch),
      firstSeen: await purgeByPlanRetention(this.deps.knex, 'metric_first_seen', now, batch),
    };
  }
}
