import { dmarcReportAddress } from '../../sending/domains/dmarc-record.js';

/**
 * The aggregate report address of a domain: `<localPart>+<domain id>@<inbound MX host>`. One
 * address per domain (not one for all) because several teams may hold the same domain name: the
 * id says whose domain a report is for without trusting what the report claims, and a report
 * sent to a deleted domain's address is refused at RCPT.
 */
export type DmarcAddressing = { localPart: string; mxHost: string };

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function reportAddressOf(addressing: DmarcAddressing, domainId: string): string {
  return dmarcReportAddress(addressing.localPart, addressing.mxHost, domainId);
}

/** The domain id a report address names, or null when `local@host` is not one. */
export function domainIdOfReportAddress(addressing: DmarcAddressing, local: string, host: string): string | null {
  if (host !== addressing.mxHost.toLowerCase().replace(/\.$/, '')) return null;
  const match = new RegExp(`^${escape(addressing.localPart)}\\+(${UUID})$`, 'i').exec(local);
  return match ? match[1]!.toLowerCase() : null;
}

/**
 * RFC 7489 7.1: the rua host is outside the sending domain's zone, so receivers send reports
 * only if `<domain>._report._dmarc.<mx host>` has a TXT "v=DMARC1". The operator publishes it
 * once as a wildcard in the zone of the MX host: `*._report._dmarc.<mx host>`.
 */
export function externalReportAuthorization(mxHost: string, domainName?: string): { name: string; value: string } {
  const host = mxHost.toLowerCase().replace(/\.$/, '');
  return { name: `${domainName ? domainName.toLowerCase() : '*'}._report._dmarc.${host}`, value: 'v=DMARC1' };
}
