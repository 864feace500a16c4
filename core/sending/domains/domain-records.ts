import { relativeTo } from '../../../lib/dns/hostname.js';
import type { Region } from '../../platform/teams/team.types.js';
import { dkimRecordValue } from './dkim-keys.js';
import { RECEIVING_REGIONS, type DkimKey, type DnsRecord, type Domain } from './domain.types.js';

/** Where this appliance's records point: its host names and each region's egress addresses. */
export type RecordTargets = {
  mtaHostname: string;
  inboundMxHost: string;
  trackingHost: string;
  regionIps: Record<Region, string[]>;
  /** Local part of the DMARC aggregate report address (config.dmarcReports.localPart): DMARC records carry rua= with it. */
  dmarcReportLocalPart?: string;
  /** The mailbox our TLSRPT records name (RFC 8460 rua); unset: no TLSRPT record is offered. */
  tlsRptRua?: string;
};

/** SPF covering every address of the region's pool, so any IP the MTA picks passes. */
export function spfValue(ips: string[]): string {
  const mechanisms = ips.map((ip) => (ip.includes(':') ? `ip6:${ip}` : `ip4:${ip}`));
  return ['v=spf1', ...mechanisms, '~all'].join(' ');
}

/**
 * Every record the domain needs, always every group (DKIM, SPF TXT and return-path MX,
 * Tracking, and Receiving in the receiving regions), whether or not its feature is on; only
 * `required` depends on the toggles.
 */
export function expectedRecords(domain: Domain, keys: DkimKey[], targets: RecordTargets): DnsRecord[] {
  const at = (label: string) => (label === '@' ? domain.name : `${label}.${domain.name}`);
  const make = (record: Omit<DnsRecord, 'name'>): DnsRecord => ({
    ...record,
    name: relativeTo(record.fqdn, domain.zone),
  });
  const records: DnsRecord[] = keys
    .filter((key) => key.state !== 'retired')
    .map((key) =>
      make({
        id: `dkim:${key.id}`,
        record: 'DKIM',
        fqdn: `${key.selector}._domainkey.${domain.name}`,
        type: 'TXT',
        value: dkimRecordValue(key.algorithm, key.publicKey),
        required: domain.sendingEnabled && key.state === 'active',
        dkimKeyId: key.id,
      }),
    );
  const returnPath = at(domain.customReturnPath);
  records.push(
    make({
      id: 'spf',
      record: 'SPF',
      fqdn: returnPath,
      type: 'TXT',
      value: spfValue(targets.regionIps[domain.region]),
      required: domain.sendingEnabled,
    }),
    make({
      id: 'return_path_mx',
      record: 'SPF',
      fqdn: returnPath,
      type: 'MX',
      value: targets.mtaHostname,
      priority: 10,
      required: domain.sendingEnabled,
    }),
    make({
      id: 'tracking',
      record: 'Tracking',
      fqdn: at(domain.trackingSubdomain),
      type: 'CNAME',
      value: targets.trackingHost,
      required: domain.openTracking || domain.clickTracking,
    }),
  );
  if (RECEIVING_REGIONS.includes(domain.region)) {
    records.push(
      make({
        id: 'receiving_mx',
        record: 'Receiving',
        fqdn: at(domain.receivingHost),
        type: 'MX',
        value: targets.inboundMxHost,
        priority: 10,
        required: domain.receivingEnabled,
      }),
    );
  }
  return records;
}
