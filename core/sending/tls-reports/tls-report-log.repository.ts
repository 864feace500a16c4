import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { newId } from '../../../lib/ids.js';

export type SentReport = {
  policyDomain: string;
  day: string;
  reportId: string;
  destination: string;
  status: 'sent' | 'failed';
  error: string | null;
  attempts: number;
};

const destinationKey = (destination: string) => createHash('sha256').update(destination).digest('hex');

function toSentReport(row: Record<string, unknown>): SentReport {
  return {
    policyDomain: String(row.policy_domain),
    day: String(row.day),
    reportId: String(row.report_id),
    destination: String(row.destination),
    status: row.status as SentReport['status'],
    error: (row.error as string | null) ?? null,
    attempts: Number(row.attempts),
  };
}

/** tls_reports_sent: what was sent where, so a rerun of the daily job sends nothing twice. */
export class TlsReportLogRepository {
  constructor(private readonly knex: Knex) {}

  async find(policyDomain: string, day: string, destination: string): Promise<SentReport | undefined> {
    const row = (await this.knex('tls_reports_sent')
      .where({ policy_domain: policyDomain, day, destination_key: destinationKey(destination) })
      .first()) as Record<string, unknown> | undefined;
    return row ? toSentReport(row) : undefined;
  }

  /** Records an attempt's outcome (insert the first time, update after). */
  async record(entry: Omit<SentReport, 'attempts'>, now: Date): Promise<void> {
    const key = destinationKey(entry.destination);
    const values = { report_id: entry.reportId, status: entry.status, error: entry.error?.slice(0, 1000) ?? null };
    const updated = await this.knex('tls_reports_sent')
      .where({ policy_domain: entry.policyDomain, day: entry.day, destination_key: key })
      .update({ ...values, attempts: this.knex.raw('attempts + 1'), updated_at: now });
    if (updated > 0) return;
    await this.knex('tls_reports_sent').insert({
      id: newId(),
      policy_domain: entry.policyDomain,
      day: entry.day,
      destination_key: key,
      destination: entry.destination.slice(0, 2000),
      ...values,
      attempts: 1,
      created_at: now,
      updated_at: now,
    });
  }

  /** The reports of a day, for operators and tests. */
  async list(day: string): Promise<SentReport[]> {
    const rows = (await this.knex('tls_reports_sent')
      .where({ day })
      .orderBy(['policy_domain', 'destination'])) as Array<Record<string, unknown>>;
    return rows.map(toSentReport);
  }

  async purgeBefore(day: string): Promise<number> {
    let total = 0;
    for (;;) {
      const ids = (await this.knex('tls_reports_sent').where('day', '<', day).limit(1000).pluck('id')) as string[];
      if (ids.length === 0) return total;
      total += await this.knex('tls_reports_sent').whereIn('id', ids).delete();
    }
  }
}
