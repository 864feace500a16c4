import type { Knex } from 'knex';
import { simpleParser } from 'mailparser';
import type { Clock } from '../../../lib/clock.js';
import { newId } from '../../../lib/ids.js';
import { MIME_LIMIT_OPTIONS } from '../../../lib/mail/mime-limits.js';
import type { PageQuery } from '../../shared/pagination/list-query.js';
import { reportPartOf, reportXmlOf } from './dmarc-attachment.js';
import { parseDmarcFeedback } from './dmarc-feedback-parser.js';
import type { DmarcReportRepository } from './dmarc-report.repository.js';
import {
  DmarcReportError,
  type DmarcLimits,
  type DmarcReport,
  type DmarcReportRow,
  type ParsedDmarcReport,
} from './dmarc-report.types.js';
import { summarize, type DmarcSummary } from './dmarc-summary.js';

/** The domain a report address names (from the RCPT route). */
export type DmarcTarget = { domainId: string; teamId: string; name: string; zone: string };

/** A report read before the intake's transaction, stored inside it. */
export type PreparedDmarcReport = { report: DmarcReport; rows: DmarcReportRow[] };

export type DmarcStoreOutcome = {
  kind: 'dmarc';
  domainId: string;
  status: 'parsed' | 'failed' | 'duplicate';
  reason?: string;
};

/** A report message larger than config.dmarcReports.maxReportBytes: refused at the end of DATA (552). */
export class DmarcReportTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`DMARC report larger than ${limit} bytes`);
  }
}

const DAY_MS = 86_400_000;

/** A report is about the domain, its zone (organisational domain), or a name under the zone. */
function concerns(target: DmarcTarget, published: string): boolean {
  const zone = target.zone.toLowerCase();
  return published === target.name.toLowerCase() || published === zone || published.endsWith(`.${zone}`);
}

export class DmarcReportService {
  constructor(
    private readonly deps: {
      repository: DmarcReportRepository;
      clock: Clock;
      limits: DmarcLimits;
      retentionDays: number;
      /** The caller's domain, or NotFoundError (another team's domain is not found). */
      domainOf: (teamId: string, domainId: string) => Promise<{ id: string }>;
      isOurAddress: (ip: string) => boolean;
      /** The DMARC record value we publish for a domain (the starting policy with our rua=). */
      recordValue: (domain: { id: string }) => string;
    },
  ) {}

  /** The DMARC record for a domain, as `dns-zone` prints it and auto-configure publishes it. */
  recordValue(domain: { id: string }): string {
    return this.deps.recordValue(domain);
  }

  /** Refuses (before anything is stored) a message too large to be a report. */
  assertSize(raw: Buffer): void {
    if (raw.length > this.deps.limits.maxReportBytes)
      throw new DmarcReportTooLargeError(this.deps.limits.maxReportBytes);
  }

  /** Reads a report message; never throws: what cannot be read is a failed report with the reason. */
  async prepare(raw: Buffer, target: DmarcTarget): Promise<PreparedDmarcReport> {
    const base = { id: newId(), teamId: target.teamId, domainId: target.domainId, receivedAt: this.deps.clock.now() };
    try {
      const parsed = await this.read(raw);
      if (!concerns(target, parsed.policy.domain))
        throw new DmarcReportError(`the report is for ${parsed.policy.domain}, not ${target.name}`);
      return { report: { ...base, ...this.fields(parsed), status: 'parsed', error: null }, rows: parsed.rows };
    } catch (err) {
      const error =
        err instanceof DmarcReportError ? err.message : `the report could not be read: ${(err as Error).message}`;
      return { report: { ...base, ...emptyFields(), status: 'failed', error }, rows: [] };
    }
  }

  /** Stores a prepared report in the intake's transaction; a report id seen before from the same organisation is not stored again. */
  async store(trx: Knex.Transaction, prepared: PreparedDmarcReport): Promise<DmarcStoreOutcome> {
    const { report } = prepared;
    const outcome = { kind: 'dmarc' as const, domainId: report.domainId };
    if (
      report.status === 'parsed' &&
      (await this.deps.repository.exists(trx, report.domainId, report.orgName!, report.reportId!))
    )
      return {
        ...outcome,
        status: 'duplicate',
        reason: `report ${report.reportId} of ${report.orgName} is already stored`,
      };
    await this.deps.repository.insert(trx, report, prepared.rows);
    return report.status === 'failed'
      ? { ...outcome, status: 'failed', reason: report.error! }
      : { ...outcome, status: 'parsed' };
  }

  async list(teamId: string, domainId: string, page: PageQuery) {
    await this.deps.domainOf(teamId, domainId);
    const { reports, hasMore } = await this.deps.repository.list(teamId, domainId, page);
    const rows = await this.deps.repository.rowsOf(reports.map((report) => report.id));
    return { reports: reports.map((report) => ({ report, rows: rows.get(report.id) ?? [] })), hasMore };
  }

  /** The summary of reports whose period began in [from, to); default the last `days` (30) days. */
  async summary(
    teamId: string,
    domainId: string,
    range: { days?: number; from?: Date; to?: Date },
  ): Promise<DmarcSummary> {
    await this.deps.domainOf(teamId, domainId);
    const now = this.deps.clock.now();
    const to = range.to ?? now;
    const from = range.from ?? new Date(to.getTime() - (range.days ?? 30) * DAY_MS);
    const rows = await this.deps.repository.aggregate(domainId, from, to);
    return summarize(rows, { from, to }, this.deps.isOurAddress);
  }

  /** Reports past retention, and those of deleted domains. */
  async purgeExpired(): Promise<{ deleted: number; orphans: number }> {
    const before = new Date(this.deps.clock.now().getTime() - this.deps.retentionDays * DAY_MS);
    const deleted = await this.deps.repository.purgeReceivedBefore(before);
    return { deleted, orphans: await this.deps.repository.purgeOrphans() };
  }

  private async read(raw: Buffer): Promise<ParsedDmarcReport> {
    const mail = await simpleParser(raw, { ...MIME_LIMIT_OPTIONS, skipHtmlToText: true, skipTextToHtml: true });
    const part = reportPartOf(
      mail.attachments.map((a) => ({ filename: a.filename ?? null, contentType: a.contentType, content: a.content })),
    );
    if (!part) throw new DmarcReportError('the message has no report attachment (.xml, .xml.gz or .zip)');
    if (part.content.length > this.deps.limits.maxReportBytes)
      throw new DmarcReportError(`the report attachment is larger than ${this.deps.limits.maxReportBytes} bytes`);
    return parseDmarcFeedback(reportXmlOf(part.content, this.deps.limits.maxXmlBytes), this.deps.limits.maxRecords);
  }

  private fields(parsed: ParsedDmarcReport) {
    return {
      orgName: parsed.orgName,
      email: parsed.email,
      reportId: parsed.reportId,
      dateBegin: parsed.dateBegin,
      dateEnd: parsed.dateEnd,
      policy: parsed.policy,
      rowCount: parsed.rows.length,
      messageCount: parsed.rows.reduce((sum, row) => sum + row.count, 0),
    };
  }
}

function emptyFields() {
  return {
    orgName: null,
    email: null,
    reportId: null,
    dateBegin: null,
    dateEnd: null,
    policy: null,
    rowCount: 0,
    messageCount: 0,
  };
}
