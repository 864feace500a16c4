import { DEFAULT_DMARC } from '../../sending/domains/auto-configure/zone-changes.js';
import type { DnsRecord, Domain } from '../../sending/domains/domain.types.js';
import { wasUnanswered, type CheckResult } from './doctor.types.js';

/** How a record is written in a fix: type, absolute name, value (MX with its priority). */
function publish(record: DnsRecord): string {
  const value = record.type === 'MX' ? `${record.priority ?? 10} ${record.value}` : record.value;
  return `Publish ${record.type} ${record.fqdn} "${value}"`;
}

/**
 * What to do about a check that did not pass, in one sentence a person can follow: the record to
 * publish (from the same expected records `GET /domains/{id}` lists and the zone snippet prints),
 * or why to wait. Undefined for a pass.
 */
export function fixFor(
  entry: CheckResult,
  domain: Domain,
  records: DnsRecord[],
  /** The starting DMARC record this appliance offers (with its rua= report address). */
  dmarcValue: string = DEFAULT_DMARC,
): string | undefined {
  if (entry.status === 'ok') return undefined;
  if (wasUnanswered(entry)) return 'Check again in a few minutes: the DNS look-up got no answer, so nothing was judged';
  const byId = (id: string) => records.find((record) => record.id === id);
  switch (entry.check) {
    case 'spf': {
      const spf = byId('spf')!;
      return `${publish(spf)}, as the only SPF record at that name (merge any other sender's mechanisms into it)`;
    }
    case 'dkim': {
      const record = records.find((r) => r.record === 'DKIM' && r.fqdn === entry.subject);
      return record
        ? publish(record)
        : `Rotate the DKIM key (POST /domains/${domain.id}/dkim/rotate), then publish the record it lists`;
    }
    case 'dmarc':
      return entry.status === 'warn'
        ? 'Once DMARC reports show only your own mail, raise the policy to p=quarantine or p=reject'
        : `Publish TXT _dmarc.${domain.name} "${dmarcValue}" (a starting policy: it refuses nothing; its reports come to this appliance)`;
    case 'tlsrpt': {
      // The check's detail carries the record this appliance offers (tlsReports.ruaAddress).
      const value = /publish "([^"]+)"/.exec(entry.detail)?.[1] ?? 'v=TLSRPTv1; rua=mailto:<a mailbox you read>';
      return `Publish TXT _smtp._tls.${domain.name} "${value}", as the only TLSRPT record at that name`;
    }
    case 'mx':
      return `${publish(byId('receiving_mx')!)}${entry.status === 'warn' ? ' and remove the other MX hosts' : ''}`;
    case 'return_path_mx':
      return `${publish(byId('return_path_mx')!)}${entry.status === 'warn' ? ' and remove the other MX hosts' : ''}`;
    case 'tracking':
      return `${publish(byId('tracking')!)} in place of any other record at that name`;
    default:
      return undefined;
  }
}
