import type { Config } from '../../../lib/config/config.schema.js';
import { egressPools, REGIONS } from '../../../lib/config/egress-pools.js';
import type { DnsLookup } from '../../../lib/dns/dns-resolver.js';
import { expectedRecords, type RecordTargets } from '../../sending/domains/domain-records.js';
import { RECEIVING_REGIONS, type DkimKey, type Domain } from '../../sending/domains/domain.types.js';
import { result, unanswered, type CheckResult, type PtrLookup } from './doctor.types.js';
import { reversedLabels } from './reverse-names.js';
import {
  ownTlsRptValue,
  parseTlsRpt,
  tlsRptCandidates,
  TLSRPT_PREFIX,
} from '../../sending/tls-reports/tlsrpt-record.js';
import { SPF_LOOKUP_LIMIT, SpfInspector } from './spf.js';

const lower = (name: string) => name.toLowerCase().replace(/\.$/, '');

/** Every egress address once, with the HELO names it announces (one per pool it is in). */
export function egressAddresses(config: Config): Array<{ address: string; helos: string[] }> {
  const byAddress = new Map<string, Set<string>>();
  const pools = egressPools(config);
  for (const region of REGIONS)
    for (const entry of pools[region]) {
      const helos = byAddress.get(entry.address) ?? new Set<string>();
      helos.add(lower(entry.helo));
      byAddress.set(entry.address, helos);
    }
  return [...byAddress].map(([address, helos]) => ({ address, helos: [...helos] }));
}

/**
 * Forward-confirmed reverse DNS: the address has a PTR, the PTR name resolves back to the
 * address, and it is the HELO name the MTA announces from it (receivers such as Gmail refuse
 * mail from addresses failing the first two, and many score a HELO that differs).
 */
export async function checkPtr(
  lookup: DnsLookup,
  ptr: PtrLookup,
  egress: { address: string; helos: string[] },
): Promise<CheckResult> {
  const { address, helos } = egress;
  const names = await ptr(address);
  if (names.kind === 'temporary') return unanswered('ptr', address, `the PTR of ${address}`, names.error);
  if (names.kind === 'none')
    return result('ptr', address, 'fail', `no PTR record: publish ${helos[0]} as the reverse name of ${address}`);
  const confirmed: string[] = [];
  for (const name of names.values) {
    const forward = await lookup.addresses(name);
    if (forward.kind === 'temporary') return unanswered('ptr', address, name, forward.error);
    if (forward.kind === 'found' && forward.values.some((value) => sameAddress(value, address))) confirmed.push(name);
  }
  const ptrList = names.values.join(', ');
  if (confirmed.length === 0)
    return result('ptr', address, 'fail', `PTR ${ptrList} does not resolve back to ${address} (not forward-confirmed)`);
  const missing = helos.filter((helo) => !confirmed.includes(helo));
  if (missing.length > 0)
    return result(
      'ptr',
      address,
      'fail',
      `PTR ${ptrList} is forward-confirmed but is not the HELO name ${missing.join(', ')} the MTA announces from this address`,
    );
  return result('ptr', address, 'ok', `PTR ${confirmed.join(', ')} resolves back to ${address} and matches the HELO`);
}

function sameAddress(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase() || safeReversed(a) === safeReversed(b);
}
function safeReversed(address: string): string | undefined {
  try {
    return reversedLabels(address);
  } catch {
    return undefined;
  }
}

/** SPF at the return-path name covers every address of the domain's region pool, in at most 10 look-ups. */
export async function checkSpf(lookup: DnsLookup, domain: Domain, targets: RecordTargets): Promise<CheckResult> {
  const spfRecord = expectedRecords(domain, [], targets).find((record) => record.id === 'spf')!;
  const name = spfRecord.fqdn;
  const subject = `${domain.name} (${name})`;
  const inspector = new SpfInspector(lookup);
  const record = await inspector.record(name);
  if (record.kind === 'none')
    return result('spf', subject, 'fail', `no SPF record at ${name}: publish "${spfRecord.value}"`);
  if (record.kind === 'error')
    return record.result === 'temperror'
      ? unanswered('spf', subject, name, record.why)
      : result('spf', subject, 'fail', record.why);
  const { count, errors } = await inspector.lookupCount(name);
  const ips = targets.regionIps[domain.region];
  const uncovered: string[] = [];
  for (const ip of ips) {
    const outcome = await inspector.evaluate(ip, name);
    if (outcome === 'temperror') return unanswered('spf', subject, name, 'a look-up in its SPF tree failed');
    if (outcome !== 'pass') uncovered.push(`${ip} (${outcome})`);
  }
  const problems: string[] = [];
  if (uncovered.length > 0)
    problems.push(`does not pass ${uncovered.join(', ')} of the ${domain.region} pool: publish "${spfRecord.value}"`);
  if (count > SPF_LOOKUP_LIMIT)
    problems.push(`needs ${count} DNS look-ups, over the limit of ${SPF_LOOKUP_LIMIT} (receivers return permerror)`);
  problems.push(...errors);
  if (problems.length > 0) return result('spf', subject, 'fail', problems.join('; '));
  const caveat = inspector.unsupported.size > 0 ? `; terms not evaluated: ${[...inspector.unsupported].join(' ')}` : '';
  return result(
    'spf',
    subject,
    'ok',
    `passes all ${ips.length} ${domain.region} pool addresses with ${count} look-up${count === 1 ? '' : 's'}${caveat}`,
  );
}

/** Each active DKIM key is published at its selector with the same key (and algorithm). */
export async function checkDkim(lookup: DnsLookup, domain: Domain, keys: DkimKey[], targets: RecordTargets) {
  const active = keys.filter((key) => key.state === 'active');
  if (active.length === 0) return [result('dkim', domain.name, 'fail', 'the domain has no active DKIM key')];
  const records = expectedRecords(domain, active, targets).filter((record) => record.record === 'DKIM');
  const out: CheckResult[] = [];
  for (const expected of records) {
    const subject = expected.fqdn;
    const txt = await lookup.txt(expected.fqdn);
    if (txt.kind === 'temporary') {
      out.push(unanswered('dkim', subject, expected.fqdn, txt.error));
      continue;
    }
    const published = txt.kind === 'found' ? txt.values.filter((value) => /(^|;)\s*p=/i.test(value)) : [];
    const want = dkimTags(expected.value);
    if (published.length === 0) {
      out.push(result('dkim', subject, 'fail', `no DKIM record for the active key: publish "${expected.value}"`));
    } else if (published.some((value) => sameKey(dkimTags(value), want))) {
      out.push(result('dkim', subject, 'ok', `publishes the active ${want.get('k')} key`));
    } else {
      const tags = dkimTags(published[0]!);
      out.push(
        result(
          'dkim',
          subject,
          'fail',
          tags.get('p') === ''
            ? 'the published key is revoked (empty p=)'
            : `the published ${tags.get('k') ?? 'rsa'} key is not the active ${want.get('k')} key: publish "${expected.value}"`,
        ),
      );
    }
  }
  return out;
}

function dkimTags(value: string): Map<string, string> {
  const tags = new Map<string, string>();
  for (const part of value.split(';')) {
    const at = part.indexOf('=');
    if (at > 0) tags.set(part.slice(0, at).trim().toLowerCase(), part.slice(at + 1).replace(/\s+/g, ''));
  }
  return tags;
}
const sameKey = (a: Map<string, string>, b: Map<string, string>) =>
  (a.get('k') ?? 'rsa').toLowerCase() === (b.get('k') ?? 'rsa').toLowerCase() && a.get('p') === b.get('p');

/**
 * A DMARC policy applies to the domain: `_dmarc.<name>`, else the zone's (organizational
 * domain) with its `sp=`; none is a failure (the large mailbox providers require one of bulk
 * senders), `p=none` a warning (reports only, no protection). `mailroom dns-zone` prints p=none.
 */
export async function checkDmarc(lookup: DnsLookup, domain: Domain): Promise<CheckResult> {
  const candidates = [domain.name, ...(lower(domain.zone) !== lower(domain.name) ? [domain.zone] : [])];
  for (const owner of candidates) {
    const name = `_dmarc.${lower(owner)}`;
    const txt = await lookup.txt(name);
    if (txt.kind === 'temporary') return unanswered('dmarc', domain.name, name, txt.error);
    const records = txt.kind === 'found' ? txt.values.filter((value) => /^v=DMARC1\s*(;|$)/i.test(value.trim())) : [];
    if (records.length === 0) continue;
    if (records.length > 1)
      return result(
        'dmarc',
        domain.name,
        'fail',
        `${name} has ${records.length} DMARC records: receivers ignore all of them`,
      );
    const tags = dkimTags(records[0]!);
    const inherited = owner !== domain.name;
    const policy = ((inherited ? (tags.get('sp') ?? tags.get('p')) : tags.get('p')) ?? '').toLowerCase();
    const where = inherited ? `${name} (inherited from the zone)` : name;
    if (!['none', 'quarantine', 'reject'].includes(policy))
      return result('dmarc', domain.name, 'fail', `${where} has no valid policy (p=${policy || 'missing'})`);
    if (policy === 'none')
      return result('dmarc', domain.name, 'warn', `${where} has p=none: reports only, spoofed mail is not refused`);
    return result('dmarc', domain.name, 'ok', `${where} has p=${policy}`);
  }
  return result(
    'dmarc',
    domain.name,
    'fail',
    `no DMARC record at _dmarc.${domain.name}${candidates.length > 1 ? ` or _dmarc.${domain.zone}` : ''}: publish at least "v=DMARC1; p=none" (mailroom dns-zone --domain ${domain.name} prints it)`,
  );
}

/**
 * A TLSRPT record (RFC 8460) at `_smtp._tls.<name>`: without one, senders cannot tell the owner
 * when TLS to its mail servers fails (a warning: mail flows without it); malformed or more than
 * one is a failure (senders ignore them all). Any well-formed rua passes, ours or the owner's.
 */
export async function checkTlsRpt(lookup: DnsLookup, domain: Domain, targets: RecordTargets): Promise<CheckResult> {
  const name = `${TLSRPT_PREFIX}.${lower(domain.name)}`;
  const txt = await lookup.txt(name);
  if (txt.kind === 'temporary') return unanswered('tlsrpt', domain.name, name, txt.error);
  const records = txt.kind === 'found' ? tlsRptCandidates(txt.values) : [];
  const publish = targets.tlsRptRua ? `: publish "${ownTlsRptValue(targets.tlsRptRua)}"` : '';
  if (records.length === 0)
    return result('tlsrpt', domain.name, 'warn', `no TLSRPT record at ${name}, so no TLS reports reach you${publish}`);
  if (records.length > 1)
    return result(
      'tlsrpt',
      domain.name,
      'fail',
      `${name} has ${records.length} TLSRPT records: senders ignore all of them`,
    );
  const parsed = parseTlsRpt(records[0]!);
  if (!parsed.ok) return result('tlsrpt', domain.name, 'fail', `${name} ${parsed.problem}${publish}`);
  return result('tlsrpt', domain.name, 'ok', `reports go to ${parsed.record.rua.join(', ')}`);
}

/** A receiving domain's MX points at this appliance's inbound MX host (and nowhere else). */
export async function checkReceivingMx(
  lookup: DnsLookup,
  domain: Domain,
  targets: RecordTargets,
): Promise<CheckResult | undefined> {
  if (!domain.receivingEnabled || !RECEIVING_REGIONS.includes(domain.region)) return undefined;
  const expected = expectedRecords(domain, [], targets).find((record) => record.id === 'receiving_mx')!;
  const subject = expected.fqdn;
  const mx = await lookup.mx(expected.fqdn);
  if (mx.kind === 'temporary') return unanswered('mx', subject, expected.fqdn, mx.error);
  if (mx.kind === 'none')
    return result('mx', subject, 'fail', `no MX record: publish "${expected.fqdn}. MX 10 ${expected.value}."`);
  const exchanges = mx.values.map((entry) => `${entry.exchange} (${entry.priority})`);
  const ours = mx.values.filter((entry) => lower(entry.exchange) === lower(targets.inboundMxHost));
  if (ours.length === 0)
    return result('mx', subject, 'fail', `MX points at ${exchanges.join(', ')}, not at ${targets.inboundMxHost}`);
  if (ours.length < mx.values.length)
    return result(
      'mx',
      subject,
      'warn',
      `MX includes ${targets.inboundMxHost} but also ${exchanges.filter((_, i) => !ours.includes(mx.values[i]!)).join(', ')}: some mail will go elsewhere`,
    );
  return result('mx', subject, 'ok', `MX points at ${targets.inboundMxHost}`);
}

/**
 * The address on DNS block lists: `<reversed address>.<zone>` resolving to 127.0.0.x means
 * listed; 127.255.255.x is the list refusing the query (Spamhaus answers so to public
 * resolvers), which is a warning that the check could not be made.
 */
export async function checkDnsbl(lookup: DnsLookup, address: string, zones: readonly string[]): Promise<CheckResult> {
  const listed: string[] = [];
  const unknown: string[] = [];
  for (const zone of zones) {
    const name = `${reversedLabels(address)}.${lower(zone)}`;
    const found = await lookup.addresses(name);
    if (found.kind === 'temporary') unknown.push(`${zone} (${found.error})`);
    else if (found.kind === 'found') {
      const codes = found.values.filter((value) => value.startsWith('127.'));
      if (codes.some((code) => code.startsWith('127.255.255.')))
        unknown.push(`${zone} refused the query (${codes.join(', ')}): use a resolver of your own`);
      else if (codes.length > 0) listed.push(`${zone} (${codes.join(', ')})`);
    }
  }
  if (listed.length > 0) return result('dnsbl', address, 'fail', `listed on ${listed.join(', ')}`);
  if (unknown.length > 0) return result('dnsbl', address, 'warn', `could not query ${unknown.join(', ')}`);
  return result('dnsbl', address, 'ok', `not listed on ${zones.join(', ')}`);
}
