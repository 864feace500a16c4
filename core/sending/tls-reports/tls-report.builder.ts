import type { TlsResultCount } from './tls-result.repository.js';

/** RFC 8460 4.4: the report's JSON, field names as the RFC spells them. */
export type TlsReportJson = {
  'organization-name': string;
  'date-range': { 'start-datetime': string; 'end-datetime': string };
  'contact-info': string;
  'report-id': string;
  policies: Array<{
    policy: {
      'policy-type': string;
      'policy-string': string[];
      'policy-domain': string;
      'mx-host'?: string[];
    };
    summary: { 'total-successful-session-count': number; 'total-failure-session-count': number };
    'failure-details'?: FailureDetail[];
  }>;
};

type FailureDetail = {
  'result-type': string;
  'sending-mta-ip'?: string;
  'receiving-mx-hostname'?: string;
  'receiving-ip'?: string;
  'failed-session-count': number;
  'additional-information'?: string;
};

export type ReportIdentity = {
  organizationName: string;
  contactInfo: string;
  /** Our MTA's host name: the submitter (RFC 8460 5.3). */
  submitter: string;
};

/** The day's UTC bounds (RFC 8460 4.4 date-range: the whole day). */
export function dayRange(day: string): { start: Date; end: Date } {
  return { start: new Date(`${day}T00:00:00Z`), end: new Date(`${day}T23:59:59Z`) };
}

/** Stable per domain and day, so a retried send carries the same id (receivers deduplicate by it). */
export function reportIdOf(day: string, policyDomain: string, submitter: string): string {
  return `${day}T00:00:00Z_${policyDomain}@${submitter}`;
}

const iso = (at: Date) => at.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** mx-host: the policy's patterns (sts) or the MX name (tlsa), as the RFC's list. */
function mxHosts(mxHost: string | null): string[] | undefined {
  const hosts = (mxHost ?? '').split(/[\s,]+/).filter((host) => host.length > 0);
  return hosts.length > 0 ? hosts : undefined;
}

function failureDetail(count: TlsResultCount): FailureDetail {
  return {
    'result-type': count.resultType,
    ...(count.sendingIp ? { 'sending-mta-ip': count.sendingIp } : {}),
    ...(count.receivingMxHostname ? { 'receiving-mx-hostname': count.receivingMxHostname } : {}),
    ...(count.receivingIp ? { 'receiving-ip': count.receivingIp } : {}),
    'failed-session-count': count.sessions,
    ...(count.additionalInfo ? { 'additional-information': count.additionalInfo } : {}),
  };
}

/**
 * One domain's day of counts as the RFC 8460 report: one `policies[]` entry per policy applied
 * (type, text and mx hosts), its sessions summed into the summary and its failures listed.
 */
export function buildTlsReport(
  identity: ReportIdentity,
  day: string,
  policyDomain: string,
  counts: TlsResultCount[],
): TlsReportJson {
  const groups = new Map<string, TlsResultCount[]>();
  for (const count of counts) {
    const key = JSON.stringify([count.policyType, count.policyString, count.mxHost]);
    groups.set(key, [...(groups.get(key) ?? []), count]);
  }
  const { start, end } = dayRange(day);
  return {
    'organization-name': identity.organizationName,
    'date-range': { 'start-datetime': iso(start), 'end-datetime': iso(end) },
    'contact-info': identity.contactInfo,
    'report-id': reportIdOf(day, policyDomain, identity.submitter),
    policies: [...groups.values()].map((group) => {
      const first = group[0]!;
      const failures = group.filter((count) => count.resultType !== 'success');
      const sum = (rows: TlsResultCount[]) => rows.reduce((total, row) => total + row.sessions, 0);
      const mx = mxHosts(first.mxHost);
      return {
        policy: {
          'policy-type': first.policyType,
          'policy-string': first.policyString,
          'policy-domain': policyDomain,
          ...(mx ? { 'mx-host': mx } : {}),
        },
        summary: {
          'total-successful-session-count': sum(group.filter((count) => count.resultType === 'success')),
          'total-failure-session-count': sum(failures),
        },
        ...(failures.length > 0 ? { 'failure-details': failures.map(failureDetail) } : {}),
      };
    }),
  };
}

/** RFC 8460 5.3: `submitter!policy-domain!begin!end!unique-id.json.gz`, times in epoch seconds. */
export function reportFilename(submitter: string, policyDomain: string, day: string): string {
  const { start, end } = dayRange(day);
  const seconds = (at: Date) => Math.floor(at.getTime() / 1000);
  return `${submitter}!${policyDomain}!${seconds(start)}!${seconds(end)}!001.json.gz`;
}
