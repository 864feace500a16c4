import type { Knex } from 'knex';
import { readJson, readNullableTimestamp, readTimestamp, rowsPerInsert, writeJson } from '../../../db/dialect.js';
import { paginateNewestFirst, type PageQuery } from '../../shared/pagination/list-query.js';
import type { DmarcPolicyPublished, DmarcReport, DmarcReportRow } from './dmarc-report.types.js';

const REPORTS = 'dmarc_reports';
const ROWS = 'dmarc_report_rows';

type Row = Record<string, unknown>;

function toReport(row: Row): DmarcReport {
  return {
    id: String(row.id),
    teamId: String(row.team_id),
    domainId: String(row.domain_id),
    status: row.status === 'parsed' ? 'parsed' : 'failed',
    error: (row.error as string | null) ?? null,
    orgName: (row.org_name as string | null) ?? null,
    email: (row.email as string | null) ?? null,
    reportId: (row.report_id as string | null) ?? null,
    dateBegin: readNullableTimestamp(row.date_begin),
    dateEnd: readNullableTimestamp(row.date_end),
    policy: readJson<DmarcPolicyPublished | null>(row.policy, null),
    rowCount: Number(row.row_count),
    messageCount: Number(row.message_count),
    receivedAt: readTimestamp(row.received_at),
  };
}

/** One aggregate of rows: per day (the report's begin), source and aligned results. */
export type DmarcRowAggregate = { day: string; sourceIp: string; dkim: string; spf: string; count: number };

export class DmarcReportRepository {
  constructor(private readonly knex: Knex) {}

  /** A report already stored for this domain from this organisation under this id. */
  async exists(trx: Knex, domainId: string, orgName: string, reportId: string): Promise<boolean> {
    const row = await trx(REPORTS).where({ domain_id: domainId, org_name: orgName, report_id: reportId }).first('id');
    return row !== undefined;
  }

  async insert(trx: Knex, report: DmarcReport, rows: DmarcReportRow[]): Promise<void> {
    await trx(REPORTS).insert({
      id: report.id,
      team_id: report.teamId,
      domain_id: report.domainId,
      status: report.status,
      error: report.error?.slice(0, 500) ?? null,
      org_name: report.orgName?.slice(0, 255) ?? null,
      email: report.email?.slice(0, 320) ?? null,
      report_id: report.reportId?.slice(0, 255) ?? null,
      date_begin: report.dateBegin,
      date_end: report.dateEnd,
      policy: writeJson(report.policy),
      row_count: report.rowCount,
      message_count: report.messageCount,
      received_at: report.receivedAt,
    });
    const values = rows.map((row) => ({
      report_id: report.id,
      domain_id: report.domainId,
      date_begin: report.dateBegin,
      source_ip: row.sourceIp,
      count: row.count,
      disposition: row.disposition.slice(0, 32),
      dkim: row.dkim.slice(0, 16),
      spf: row.spf.slice(0, 16),
      header_from: row.headerFrom.slice(0, 255),
      envelope_from: row.envelopeFrom?.slice(0, 255) ?? null,
      auth_results: JSON.stringify(row.authResults),
    }));
    const chunk = rowsPerInsert(trx, 11);
    for (let i = 0; i < values.length; i += chunk) await trx(ROWS).insert(values.slice(i, i + chunk));
  }

  async list(teamId: string, domainId: string, page: PageQuery): Promise<{ reports: DmarcReport[]; hasMore: boolean }> {
    const query = this.knex(REPORTS).where({ team_id: teamId, domain_id: domainId });
    const { rows, hasMore } = await paginateNewestFirst<Row>(query, page);
    return { reports: rows.map(toReport), hasMore };
  }

  async rowsOf(reportIds: string[]): Promise<Map<string, DmarcReportRow[]>> {
    const byReport = new Map<string, DmarcReportRow[]>();
    if (reportIds.length === 0) return byReport;
    const rows = (await this.knex(ROWS).whereIn('report_id', reportIds).orderBy('id', 'asc')) as Row[];
    for (const row of rows) {
      const list = byReport.get(String(row.report_id)) ?? [];
      list.push({
        sourceIp: String(row.source_ip),
        count: Number(row.count),
        disposition: String(row.disposition),
        dkim: String(row.dkim),
        spf: String(row.spf),
        headerFrom: String(row.header_from),
        envelopeFrom: (row.envelope_from as string | null) ?? null,
        authResults: readJson(row.auth_results, { dkim: [], spf: [] }),
      });
      byReport.set(String(row.report_id), list);
    }
    return byReport;
  }

  /** Rows of parsed reports that began in [from, to), summed by source and aligned results per report begin. */
  async aggregate(domainId: string, from: Date, to: Date): Promise<DmarcRowAggregate[]> {
    const rows = (await this.knex(ROWS)
      .where('domain_id', domainId)
      .where('date_begin', '>=', from)
      .where('date_begin', '<', to)
      .groupBy('date_begin', 'source_ip', 'dkim', 'spf')
      .select('date_begin', 'source_ip', 'dkim', 'spf')
      .sum({ total: 'count' })) as Row[];
    return rows.map((row) => ({
      day: readTimestamp(row.date_begin).toISOString().slice(0, 10),
      sourceIp: String(row.source_ip),
      dkim: String(row.dkim),
      spf: String(row.spf),
      count: Number(row.total),
    }));
  }

  /** Reports received before `before`, and their rows, a batch at a time; how many reports went. */
  async purgeReceivedBefore(before: Date, batch = 500): Promise<number> {
    let deleted = 0;
    for (;;) {
      const ids = (await this.knex(REPORTS).where('received_at', '<', before).limit(batch).pluck('id')) as string[];
      if (ids.length === 0) return deleted;
      await this.knex.transaction(async (trx) => {
        await trx(ROWS).whereIn('report_id', ids).delete();
        await trx(REPORTS).whereIn('id', ids).delete();
      });
      deleted += ids.length;
    }
  }

  /** Reports of domains that no longer exist (deleted domains leave nothing behind). */
  async purgeOrphans(): Promise<number> {
    const ids = (await this.knex(REPORTS)
      .whereNotIn('domain_id', this.knex('domains').select('id'))
      .limit(1000)
      .pluck('id')) as string[];
    if (ids.length === 0) return 0;
    await this.knex(ROWS).whereIn('report_id', ids).delete();
    await this.knex(REPORTS).whereIn('id', ids).delete();
    return ids.length;
  }
}
