import type { Prerequisite, UpdateOperation, UpdateRecord } from '../../../../lib/dns/dns-update.js';
import type { DkimKey, DnsRecord, Domain } from '../domain.types.js';
import { ownTlsRptValue, TLSRPT_PREFIX } from '../../tls-reports/tlsrpt-record.js';
import { STARTING_DMARC_POLICY } from '../dmarc-record.js';

/**
 * The DNS UPDATE operations for a domain's records, as pure data. Names we chose (DKIM
 * selectors, the return-path label, the tracking label) have their RRset replaced, so a second
 * run (after the region's addresses changed, say) leaves one current record; records at names
 * the team may share (its MX) are replaced only when receiving is on, as it asked.
 */

/** A starting DMARC policy: reports nothing, refuses nothing, so it never breaks mail. */
export const DEFAULT_DMARC = STARTING_DMARC_POLICY;

/** TXT strings are at most 255 bytes each; a 2048-bit DKIM key is longer, so it is split. */
export function txtStrings(value: string): string[] {
  return value.match(/.{1,255}/g) ?? [''];
}

function dataOf(record: DnsRecord): unknown {
  if (record.type === 'TXT') return txtStrings(record.value);
  if (record.type === 'MX') return { preference: record.priority ?? 10, exchange: record.value };
  return record.value;
}

function toUpdateRecord(record: DnsRecord, ttl: number): UpdateRecord {
  return { name: record.fqdn, type: record.type, ttl, data: dataOf(record) };
}

/** What auto-configure publishes: every record the domain lists, receiving's MX only when receiving is on. */
export function publishedRecords(domain: Domain, records: DnsRecord[]): DnsRecord[] {
  return records.filter((record) => record.id !== 'receiving_mx' || domain.receivingEnabled);
}

const selectorName = (domain: Domain, key: DkimKey) => `${key.selector}._domainkey.${domain.name}`;

/** Replaces each record's RRset, and drops the records of retired DKIM keys. */
export function publishOperations(
  domain: Domain,
  records: DnsRecord[],
  keys: DkimKey[],
  ttl: number,
): UpdateOperation[] {
  const retired: UpdateOperation[] = keys
    .filter((key) => key.state === 'retired')
    .map((key) => ({ op: 'delete_rrset', name: selectorName(domain, key), type: 'TXT' }));
  const replaced = publishedRecords(domain, records).flatMap((record): UpdateOperation[] => [
    { op: 'delete_rrset', name: record.fqdn, type: record.type },
    { op: 'add', record: toUpdateRecord(record, ttl) },
  ]);
  return [...retired, ...replaced];
}

/** Adds one record beside the others of its name (a rotated key's DKIM record). */
export function addOperation(record: DnsRecord, ttl: number): UpdateOperation {
  return { op: 'add', record: toUpdateRecord(record, ttl) };
}

/**
 * Removes what publishOperations wrote: the RRsets at names we chose, exactly our record where
 * the name is shared (tracking CNAME, receiving MX). DMARC stays: the policy may be the team's.
 */
export function removeOperations(domain: Domain, records: DnsRecord[], keys: DkimKey[]): UpdateOperation[] {
  const selectors: UpdateOperation[] = keys.map((key) => ({
    op: 'delete_rrset',
    name: selectorName(domain, key),
    type: 'TXT',
  }));
  const others = records
    .filter((record) => record.record !== 'DKIM')
    .map((record): UpdateOperation =>
      record.id === 'spf' || record.id === 'return_path_mx'
        ? { op: 'delete_rrset', name: record.fqdn, type: record.type }
        : { op: 'delete_record', record: { name: record.fqdn, type: record.type, data: dataOf(record) } },
    );
  return [...selectors, ...others];
}

/**
 * DMARC only where none applies yet: at the domain, nor at the zone's apex (RFC 7489 6.6.3).
 * `value`: the starting policy, with our rua= (dmarcRecordValue).
 */
export function dmarcUpdate(
  domain: Domain,
  zoneApex: string,
  ttl: number,
  value: string = DEFAULT_DMARC,
): { prerequisites: Prerequisite[]; updates: UpdateOperation[] } {
  const names = [...new Set([`_dmarc.${domain.name}`, `_dmarc.${zoneApex}`])];
  return {
    prerequisites: names.map((name) => ({ rrsetAbsent: { name, type: 'TXT' } })),
    updates: [{ op: 'add', record: { name: `_dmarc.${domain.name}`, type: 'TXT', ttl, data: txtStrings(value) } }],
  };
}

/** A TLSRPT record (RFC 8460) naming our report mailbox, only where the domain has none yet. */
export function tlsRptUpdate(
  domain: Domain,
  ttl: number,
  ruaAddress: string,
): { prerequisites: Prerequisite[]; updates: UpdateOperation[] } {
  const name = `${TLSRPT_PREFIX}.${domain.name}`;
  return {
    prerequisites: [{ rrsetAbsent: { name, type: 'TXT' } }],
    updates: [{ op: 'add', record: { name, type: 'TXT', ttl, data: txtStrings(ownTlsRptValue(ruaAddress)) } }],
  };
}
