import type { DnsLookup, LookupResult } from '../../../lib/dns/dns-resolver.js';
import type { DnsRecord, DomainStatus, RecordStatus } from './domain.types.js';

/**
 * Checks published records against what they should be, with real DNS look-ups. A record not
 * there yet is `pending`; there with another value, `failed`; a SERVFAIL or timeout,
 * `temporary_failure`, which never counts against the domain.
 */
const squash = (value: string) => value.replace(/\s+/g, '').toLowerCase();

function fromLookup<T>(result: LookupResult<T>, matches: (value: T) => boolean): RecordStatus {
  if (result.kind === 'temporary') return 'temporary_failure';
  if (result.kind === 'none') return 'pending';
  return result.values.some(matches) ? 'verified' : 'failed';
}

/** SPF is right when one v=spf1 record lists every mechanism we publish. */
function spfCovers(published: string, expected: string): boolean {
  const have = new Set(published.toLowerCase().split(/\s+/));
  return (
    have.has('v=spf1') &&
    expected
      .toLowerCase()
      .split(/\s+/)
      .filter((m) => m.startsWith('ip'))
      .every((m) => have.has(m))
  );
}

export async function checkRecord(lookup: DnsLookup, record: DnsRecord): Promise<RecordStatus> {
  const target = record.value.toLowerCase();
  switch (record.type) {
    case 'TXT': {
      const result = await lookup.txt(record.fqdn);
      if (record.record === 'DKIM') {
        const key = /p=([^;]+)/.exec(record.value)?.[1] ?? '';
        return fromLookup(result, (txt) => squash(txt).includes(`p=${key.toLowerCase()}`));
      }
      const spf =
        result.kind === 'found'
          ? { kind: 'found' as const, values: result.values.filter((v) => /^v=spf1\b/i.test(v.trim())) }
          : result;
      return fromLookup(spf.kind === 'found' && spf.values.length === 0 ? { kind: 'none' } : spf, (txt) =>
        spfCovers(txt, record.value),
      );
    }
    case 'MX':
      return fromLookup(await lookup.mx(record.fqdn), (mx) => mx.exchange === target);
    case 'CNAME':
      return fromLookup(await lookup.cname(record.fqdn), (cname) => cname === target);
  }
}

export async function checkRecords(lookup: DnsLookup, records: DnsRecord[]): Promise<Record<string, RecordStatus>> {
  const statuses = await Promise.all(
    records.map(async (record) => [record.id, await checkRecord(lookup, record)] as const),
  );
  return Object.fromEntries(statuses);
}

/**
 * The domain's status from its required records: any temporary failure wins (we could not
 * tell), all verified is verified, some is partially verified, none is still pending (or failed
 * once the verification window has closed).
 */
export function domainStatusOf(
  records: DnsRecord[],
  statuses: Record<string, RecordStatus>,
  windowClosed: boolean,
): DomainStatus {
  const required = records.filter((record) => record.required).map((record) => statuses[record.id] ?? 'not_started');
  if (required.includes('temporary_failure')) return 'temporary_failure';
  const verified = required.filter((status) => status === 'verified').length;
  if (required.length > 0 && verified === required.length) return 'verified';
  if (verified > 0) return 'partially_verified';
  return windowClosed ? 'failed' : 'pending';
}
