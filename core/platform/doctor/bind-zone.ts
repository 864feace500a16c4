import { DEFAULT_DMARC } from '../../sending/domains/auto-configure/zone-changes.js';
import type { DnsRecord, Domain } from '../../sending/domains/domain.types.js';
import { ownTlsRptValue, TLSRPT_PREFIX } from '../../sending/tls-reports/tlsrpt-record.js';

const TTL = 3600;
const absolute = (name: string) => `${name.toLowerCase().replace(/\.$/, '')}.`;

/** A TXT value as BIND writes it: quoted strings of at most 255 bytes, quotes and backslashes escaped. */
export function txtStrings(value: string): string {
  const chunks = value.match(/[\s\S]{1,255}/g) ?? [''];
  return chunks.map((chunk) => `"${chunk.replace(/[\\"]/g, (c) => `\\${c}`)}"`).join(' ');
}

function line(record: DnsRecord): string {
  const owner = absolute(record.fqdn);
  switch (record.type) {
    case 'TXT':
      return `${owner}\t${TTL}\tIN\tTXT\t${txtStrings(record.value)}`;
    case 'MX':
      return `${owner}\t${TTL}\tIN\tMX\t${record.priority ?? 10} ${absolute(record.value)}`;
    case 'CNAME':
      return `${owner}\t${TTL}\tIN\tCNAME\t${absolute(record.value)}`;
  }
}

/**
 * The domain's records as a BIND zone-file snippet to paste into its zone: absolute owner
 * names (no $ORIGIN needed), required records as they are, records of a feature that is off
 * commented out, and a live DMARC record: `mailroom doctor` fails a sending domain without one,
 * and it is the same starting policy DNS auto-configure publishes (DEFAULT_DMARC: p=none reports
 * nothing and refuses nothing, so it cannot break mail; the owner tightens it later). No `rua=`:
 * the appliance reads no aggregate reports, and an address nobody reads helps nobody. With
 * `tlsRptRua`, a TLSRPT record naming that mailbox (tlsReports.ruaAddress). `dmarc` is the
 * starting policy with the rua= of the inbound MX's report address (dmarcRecordValue): the
 * appliance reads the aggregate reports.
 */
export function bindZoneSnippet(
  domain: Domain,
  records: DnsRecord[],
  tlsRptRua?: string,
  dmarc: string = DEFAULT_DMARC,
): string {
  const out = [`; Mailroom records for ${domain.name} (zone ${domain.zone}, region ${domain.region})`];
  for (const group of ['DKIM', 'SPF', 'Tracking', 'Receiving'] as const) {
    const inGroup = records.filter((record) => record.record === group);
    if (inGroup.length === 0) continue;
    out.push(`; ${group}`);
    for (const record of inGroup)
      out.push(record.required || record.record === 'DKIM' ? line(record) : `; (not required now) ${line(record)}`);
  }
  const apex = domain.zone.toLowerCase() !== domain.name.toLowerCase() ? ` or _dmarc.${domain.zone}` : '';
  out.push(
    `; DMARC: a starting policy (p=none: reports nothing, refuses nothing). Leave this line out if _dmarc.${domain.name}${apex} already has a policy: keep yours`,
    `${absolute(`_dmarc.${domain.name}`)}\t${TTL}\tIN\tTXT\t${txtStrings(dmarc)}`,
  );
  const reportHost = /rua=mailto:[^@;]+@([^;\s]+)/.exec(dmarc)?.[1];
  // RFC 7489 7.1: receivers send reports to a host outside the domain only if that host's zone says yes.
  if (reportHost)
    out.push(
      `; DMARC reports go to the appliance: the zone of ${reportHost} needs, once for every domain, *._report._dmarc.${reportHost}. TXT "v=DMARC1"`,
    );
  if (tlsRptRua)
    out.push(
      `; TLS reporting (RFC 8460): where senders report failed TLS to this domain's MX. Leave this line out if ${TLSRPT_PREFIX}.${domain.name} already has a record: keep yours`,
      `${absolute(`${TLSRPT_PREFIX}.${domain.name}`)}\t${TTL}\tIN\tTXT\t${txtStrings(ownTlsRptValue(tlsRptRua))}`,
    );
  return `${out.join('\n')}\n`;
}
