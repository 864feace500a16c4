import type { Knex } from 'knex';
import { readTimestamp } from '../../../db/dialect.js';
import { newId } from '../../../lib/ids.js';

export type MeterReport = {
  id: string;
  teamId: string;
  customerId: string;
  periodStart: Date;
  periodEnd: Date;
  windowStart: Date;
  identifier: string;
  quantity: number;
  eventAt: Date;
  status: 'pending' | 'accepted';
  attempts: number;
};

type Row = {
  id: string;
  team_id: string;
  customer_id: string;
  period_start: unknown;
  period_end: unknown;
  window_start: unknown;
  identifier: string;
  quantity: number;
  event_at: unknown;
  status: 'pending' | 'accepted';
  attempts: number;
};

const toReport = (row: Row): MeterReport => ({
  id: row.id,
  teamId: row.team_id,
  customerId: row.customer_id,
  periodStart: readTimestamp(row.period_start),
  periodEnd: readTimestamp(row.period_end),
  windowStart: readTimestamp(row.window_start),
  identifier: row.identifier,
  quantity: Number(row.quantity),
  eventAt: readTimestamp(row.event_at),
  status: row.status,
  attempts: Number(row.attempts),
});

/** billing_meter_reports: overage reported (or being reported) to the provider's meter. */
export class MeterReportRepository {
  constructor(private readonly knex: Knex) {}

  async pending(): Promise<MeterReport[]> {
    const rows = (await this.knex('billing_meter_reports').where({ status: 'pending' }).orderBy('created_at')) as Row[];
    return rows.map(toReport);
  }

  /** Overage already reported (or pending) for the team's period: what a new report adds to. */
  async reportedFor(teamId: string, periodStart: Date): Promise<number> {
    const row = (await this.knex('billing_meter_reports')
      .where({ team_id: teamId, period_start: periodStart })
      .sum({ total: 'quantity' })
      .first()) as { total: number | string | null } | undefined;
    return Number(row?.total ?? 0);
  }

  async exists(identifier: string): Promise<boolean> {
    return Boolean(await this.knex('billing_meter_reports').where({ identifier }).first('id'));
  }

  /** The team's most recent report: its period may need a last report once a new period began. */
  async latest(teamId: string): Promise<MeterReport | undefined> {
    const row = (await this.knex('billing_meter_reports')
      .where({ team_id: teamId })
      .orderBy('period_start', 'desc')
      .orderBy('created_at', 'desc')
      .first()) as Row | undefined;
    return row ? toReport(row) : undefined;
  }

  async insertPending(report: Omit<MeterReport, 'id' | 'status' | 'attempts'>, now: Date): Promise<MeterReport> {
    const id = newId();
    await this.knex('billing_meter_reports').insert({
      id,
      team_id: report.teamId,
      customer_id: report.customerId,
      period_start: report.periodStart,
      period_end: report.periodEnd,
      window_start: report.windowStart,
      identifier: report.identifier,
      quantity: report.quantity,
      event_at: report.eventAt,
      status: 'pending',
      attempts: 0,
      created_at: now,
    });
    return { ...report, id, status: 'pending', attempts: 0 };
  }

  async markAccepted(id: string, now: Date): Promise<void> {
    await this.knex('billing_meter_reports')
      .where({ id })
      .update({ status: 'accepted', accepted_at: now, last_error: null, attempts: this.knex.raw('attempts + 1') });
  }

  async markFailed(id: string, error: string): Promise<void> {
    await this.knex('billing_meter_reports')
      .where({ id })
      .update({ last_error: error.slice(0, 500), attempts: this.knex.raw('attempts + 1') });
  }

  /** Accepted reports of periods that ended before `cutoff` (kept for an audit until then). */
  async purgeAcceptedBefore(cutoff: Date): Promise<number> {
    return this.knex('billing_meter_reports').where({ status: 'accepted' }).where('period_end', '<', cutoff).delete();
  }
}
