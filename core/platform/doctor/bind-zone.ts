import type { DnsRecord, Domain } from '../../sending/domains/domain.types.js';

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
 * commented out, and a DMARC record to start from, commented (it is the domain owner's policy).
 */
export function bindZoneSnippet(domain: Domain, records: DnsRecord[]): string {
  const out = [`; Mailroom records for ${domain.name} (zone ${domain.zone}, region ${domain.region})`];
  for (const group of ['DKIM', 'SPF', 'Tracking', 'Receiving'] as const) {
    const inGroup = records.filter((record) => record.record === group);
    if (inGroup.length === 0) continue;
    out.push(`; ${group}`);
    for (const record of inGroup)
      out.push(record.required || record.record === 'DKIM' ? line(record) : `; (not required now) ${line(record)}`);
  }
  out.push(
    '; DMARC (recommended; choose your policy)',
    `; ${absolute(`_dmarc.${domain.name}`)}\t${TTL}\tIN\tTXT\t"v=DMARC1; p=none"`,
  );
  return `${out.join('\n')}\n`;
}
