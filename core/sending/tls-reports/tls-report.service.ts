import { gzipSync } from 'node:zlib';
import type { Clock } from '../../../lib/clock.js';
import type { DnsLookup } from '../../../lib/dns/dns-resolver.js';
import type { Logger } from '../../../lib/logger.js';
import { utcDay } from './tls-result-aggregator.js';
import type { TlsResultRepository } from './tls-result.repository.js';
import { buildTlsReport, reportFilename, type ReportIdentity, type TlsReportJson } from './tls-report.builder.js';
import type { TlsReportLogRepository } from './tls-report-log.repository.js';
import { deliverReport, type ReportDeliveryDeps, type ReportParcel } from './report-delivery.js';
import { parseTlsRpt, tlsRptCandidates, TLSRPT_PREFIX } from './tlsrpt-record.js';

export type TlsReportServiceDeps = {
  results: TlsResultRepository;
  log: TlsReportLogRepository;
  clock: Clock;
  lookup: DnsLookup;
  logger: Logger;
  identity: ReportIdentity;
  delivery: ReportDeliveryDeps;
  enabled: boolean;
  retentionDays: number;
};

export type DailyRunCounts = {
  domains: number;
  sent: number;
  failed: number;
  alreadySent: number;
  noRecord: number;
};

const DAY_MS = 86_400_000;

/**
 * The daily RFC 8460 reports: for each policy domain we had sessions with on the previous UTC
 * day, its `_smtp._tls` record names where the report goes; each destination gets the gzipped
 * JSON once (a rerun skips what was sent and retries what failed).
 */
export class TlsReportService {
  constructor(private readonly deps: TlsReportServiceDeps) {}

  /** Reports for the previous UTC day (or `day`, YYYY-MM-DD). */
  async sendDaily(day = utcDay(new Date(this.deps.clock.now().getTime() - DAY_MS))): Promise<DailyRunCounts> {
    const counts: DailyRunCounts = { domains: 0, sent: 0, failed: 0, alreadySent: 0, noRecord: 0 };
    if (!this.deps.enabled) return counts;
    for (const domain of await this.deps.results.domainsOn(day)) {
      counts.domains += 1;
      const destinations = await this.destinationsOf(domain);
      if (destinations.length === 0) counts.noRecord += 1;
      else await this.sendDomain(day, domain, destinations, counts);
    }
    return counts;
  }

  /** The day's report for one domain, as it would be sent. */
  async report(day: string, domain: string): Promise<TlsReportJson> {
    return buildTlsReport(this.deps.identity, day, domain, await this.deps.results.countsFor(day, domain));
  }

  /** Deletes counts and sent-report records older than retentionDays. */
  async purgeExpired(): Promise<{ results: number; reports: number }> {
    const cutoff = utcDay(new Date(this.deps.clock.now().getTime() - this.deps.retentionDays * DAY_MS));
    return {
      results: await this.deps.results.purgeBefore(cutoff),
      reports: await this.deps.log.purgeBefore(cutoff),
    };
  }

  /** A missing or malformed record means the domain asked for no reports; a DNS failure is logged. */
  private async destinationsOf(domain: string): Promise<string[]> {
    const name = `${TLSRPT_PREFIX}.${domain}`;
    const txt = await this.deps.lookup.txt(name);
    if (txt.kind === 'temporary') {
      this.deps.logger.warn({ name, error: txt.error }, 'tls reports: TLSRPT look-up failed; no report sent');
      return [];
    }
    const records = txt.kind === 'found' ? tlsRptCandidates(txt.values) : [];
    // RFC 8460 3: more than one record is as none.
    if (records.length !== 1) return [];
    const parsed = parseTlsRpt(records[0]!);
    return parsed.ok ? parsed.record.rua : [];
  }

  private async sendDomain(day: string, domain: string, destinations: string[], counts: DailyRunCounts) {
    const report = await this.report(day, domain);
    const parcel = this.parcel(day, domain, report);
    for (const destination of destinations) {
      const previous = await this.deps.log.find(domain, day, destination);
      if (previous?.status === 'sent') {
        counts.alreadySent += 1;
        continue;
      }
      const outcome = await deliverReport(this.deps.delivery, destination, parcel);
      const error = outcome.ok ? null : outcome.error;
      await this.deps.log.record(
        {
          policyDomain: domain,
          day,
          reportId: report['report-id'],
          destination,
          status: outcome.ok ? 'sent' : 'failed',
          error,
        },
        this.deps.clock.now(),
      );
      if (outcome.ok) counts.sent += 1;
      else {
        counts.failed += 1;
        this.deps.logger.warn({ domain, day, destination, error }, 'tls reports: report not delivered');
      }
    }
  }

  /** RFC 8460 5.3: subject, the two TLS-Report headers, the gzipped JSON named by the convention. */
  private parcel(day: string, domain: string, report: TlsReportJson): ReportParcel {
    const { submitter } = this.deps.identity;
    const gzipped = gzipSync(Buffer.from(JSON.stringify(report), 'utf8'));
    return {
      gzipped,
      mail: {
        subject: `Report Domain: ${domain} Submitter: ${submitter} Report-ID: <${report['report-id']}>`,
        headers: { 'TLS-Report-Domain': domain, 'TLS-Report-Submitter': submitter },
        text: `This is an aggregate TLS report from ${submitter} for ${domain} (${day}, UTC), as RFC 8460 describes.\n`,
        attachment: {
          filename: reportFilename(submitter, domain, day),
          content: gzipped,
          contentType: 'application/tlsrpt+gzip',
        },
      },
    };
  }
}
