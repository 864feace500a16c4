import type { RecordTargets } from './domain-records.js';

/** A starting DMARC policy: reports nothing, refuses nothing, so it never breaks mail. */
export const STARTING_DMARC_POLICY = 'v=DMARC1; p=none';

/**
 * The aggregate report address of a domain: `<local part>+<domain id>@<inbound MX host>`. One per
 * domain, because several teams may hold the same name: the id says whose reports they are.
 */
export function dmarcReportAddress(localPart: string, mxHost: string, domainId: string): string {
  return `${localPart}+${domainId}@${mxHost.toLowerCase().replace(/\.$/, '')}`;
}

/**
 * The DMARC record we publish or print for a domain: the starting policy, with `rua=` naming the
 * inbound MX's report address when the targets know it (the appliance reads the reports:
 * `GET /domains/{id}/dmarc-reports`).
 */
export function dmarcRecordValue(
  domain: { id: string },
  targets: Pick<RecordTargets, 'inboundMxHost' | 'dmarcReportLocalPart'>,
): string {
  if (!targets.dmarcReportLocalPart) return STARTING_DMARC_POLICY;
  const address = dmarcReportAddress(targets.dmarcReportLocalPart, targets.inboundMxHost, domain.id);
  return `${STARTING_DMARC_POLICY}; rua=mailto:${address}`;
}
