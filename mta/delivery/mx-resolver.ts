import { isIP } from 'node:net';
import type { DnsLookup } from '../../lib/dns/dns-resolver.js';

export type MxHost = { exchange: string; addresses: string[] };

/** Where mail for a domain goes, or why it cannot go anywhere. */
export type Route =
  | { kind: 'hosts'; hosts: MxHost[] }
  /** RFC 7505 null MX: the domain accepts no mail; a permanent failure. */
  | { kind: 'null-mx' }
  /** No MX and no address: nothing to deliver to; permanent. */
  | { kind: 'no-host'; detail: string }
  /** SERVFAIL or timeout somewhere on the way: try again later, never read as "missing". */
  | { kind: 'temporary'; detail: string };

/**
 * MX look-up through the configured resolver (tests declare their own zone): hosts in preference
 * order, equal preferences shuffled so load spreads; no MX but an address is the implicit MX
 * (RFC 5321 5.1); a single MX of "." is the null MX. Each host's addresses are resolved here,
 * keeping the family the egress address can reach, until `maxAddresses` are found (hosts
 * further down are not looked up: an attempt would not reach them).
 */
export async function resolveRoute(
  domain: string,
  lookup: DnsLookup,
  family: 4 | 6 = 4,
  random: () => number = Math.random,
  maxAddresses = Number.POSITIVE_INFINITY,
): Promise<Route> {
  const mx = await lookup.mx(domain);
  if (mx.kind === 'temporary') return { kind: 'temporary', detail: `MX look-up for ${domain} failed (${mx.error})` };
  let exchanges: string[];
  if (mx.kind === 'found') {
    if (mx.values.some((record) => record.exchange === '' || record.exchange === '.')) return { kind: 'null-mx' };
    exchanges = [...mx.values]
      .map((record) => ({ ...record, tiebreak: random() }))
      .sort((a, b) => a.priority - b.priority || a.tiebreak - b.tiebreak)
      .map((record) => record.exchange);
  } else {
    exchanges = [domain];
  }
  const hosts: MxHost[] = [];
  let addressCount = 0;
  let temporary: string | null = null;
  for (const exchange of exchanges) {
    if (addressCount >= maxAddresses) break;
    if (isIP(exchange)) {
      hosts.push({ exchange, addresses: [exchange] });
      addressCount += 1;
      continue;
    }
    const found = await lookup.addresses(exchange);
    if (found.kind === 'temporary') temporary ??= `address look-up for ${exchange} failed (${found.error})`;
    if (found.kind !== 'found') continue;
    const usable = found.values.filter((address) => isIP(address) === family).slice(0, maxAddresses - addressCount);
    if (usable.length > 0) hosts.push({ exchange, addresses: usable });
    addressCount += usable.length;
  }
  if (hosts.length > 0) return { kind: 'hosts', hosts };
  if (temporary) return { kind: 'temporary', detail: temporary };
  return {
    kind: 'no-host',
    detail:
      mx.kind === 'found'
        ? `no usable address for the MX hosts of ${domain}`
        : `${domain} has no MX and no address record`,
  };
}
