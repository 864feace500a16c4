import type { DnsLookup } from '../../../lib/dns/dns-resolver.js';
import { parentChain } from '../../../lib/dns/hostname.js';

/**
 * Look-ups made before a domain exists: which zone it sits in, and whether a name already holds
 * records of another service (a return-path label, a receiving MX).
 */
export type FoundRecord = { type: 'TXT' | 'MX' | 'CNAME'; value: string };

/** The zone apex: the closest name up the chain with an SOA; else the last two labels. */
export async function findZone(lookup: DnsLookup, name: string): Promise<string> {
  for (const candidate of parentChain(name)) {
    const soa = await lookup.soa(candidate);
    if (soa.kind === 'found') return candidate;
    if (soa.kind === 'temporary') break;
  }
  return name.split('.').slice(-2).join('.');
}

/**
 * The first record at `fqdn` that is not ours (ours: an MX to our host, an SPF listing our
 * addresses). Undefined when the name is free, or holds only our records, or DNS cannot say.
 */
export async function foreignRecordAt(
  lookup: DnsLookup,
  fqdn: string,
  ours: { mxHost: string; spf: string },
): Promise<FoundRecord | undefined> {
  const cname = await lookup.cname(fqdn);
  if (cname.kind === 'found') return { type: 'CNAME', value: cname.values[0]! };
  const mx = await lookup.mx(fqdn);
  if (mx.kind === 'found') {
    const foreign = mx.values.find((record) => record.exchange !== ours.mxHost.toLowerCase());
    if (foreign) return { type: 'MX', value: `${foreign.priority} ${foreign.exchange}` };
  }
  const txt = await lookup.txt(fqdn);
  if (txt.kind === 'found') {
    const foreign = txt.values.find((value) => /^v=spf1\b/i.test(value.trim()) && value.trim() !== ours.spf);
    if (foreign) return { type: 'TXT', value: foreign };
  }
  return undefined;
}

/** Any MX at `fqdn` that delivers somewhere other than `ourHost`. */
export async function foreignMx(lookup: DnsLookup, fqdn: string, ourHost: string): Promise<string | undefined> {
  const mx = await lookup.mx(fqdn);
  if (mx.kind !== 'found') return undefined;
  return mx.values.find((record) => record.exchange !== ourHost.toLowerCase())?.exchange;
}
