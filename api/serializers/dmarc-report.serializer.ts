import type { DmarcReport, DmarcReportRow } from '../../core/receiving/dmarc-reports/dmarc-report.types.js';
import type { DmarcSummary } from '../../core/receiving/dmarc-reports/dmarc-summary.js';

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/** One stored aggregate report with its rows (GET /domains/{id}/dmarc-reports). */
export function serializeDmarcReport({ report, rows }: { report: DmarcReport; rows: DmarcReportRow[] }) {
  return {
    object: 'dmarc_report' as const,
    id: report.id,
    domain_id: report.domainId,
    status: report.status,
    error: report.error,
    org_name: report.orgName,
    email: report.email,
    report_id: report.reportId,
    date_range: report.dateBegin ? { begin: iso(report.dateBegin), end: iso(report.dateEnd) } : null,
    policy_published: report.policy,
    message_count: report.messageCount,
    received_at: report.receivedAt.toISOString(),
    records: rows.map((row) => ({
      source_ip: row.sourceIp,
      count: row.count,
      disposition: row.disposition,
      dkim: row.dkim,
      spf: row.spf,
      header_from: row.headerFrom,
      envelope_from: row.envelopeFrom,
      auth_results: row.authResults,
    })),
  };
}

/** GET /domains/{id}/dmarc-reports/summary. */
export function serializeDmarcSummary(domainId: string, summary: DmarcSummary) {
  return {
    object: 'dmarc_summary' as const,
    domain_id: domainId,
    from: summary.from.toISOString(),
    to: summary.to.toISOString(),
    messages: summary.messages,
    spf_aligned_rate: summary.spfAlignedRate,
    dkim_aligned_rate: summary.dkimAlignedRate,
    dmarc_pass_rate: summary.dmarcPassRate,
    sources: summary.sources.map((source) => ({
      ip: source.ip,
      count: source.count,
      spf_aligned_rate: source.spfAlignedRate,
      dkim_aligned_rate: source.dkimAlignedRate,
      dmarc_pass_rate: source.dmarcPassRate,
      ours: source.ours,
    })),
    days: summary.days.map((day) => ({ date: day.date, count: day.count, dmarc_pass: day.dmarcPass })),
    unknown_senders: summary.unknownSenders,
  };
}
