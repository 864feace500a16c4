import { Resolver } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import type { LookupResult } from '../../../lib/dns/dns-resolver.js';
import type { PtrLookup } from './doctor.types.js';

/**
 * The labels of `address` in reverse order, as under in-addr.arpa / ip6.arpa and DNSBL zones:
 * 192.0.2.10 -> 10.2.0.192; an IPv6 address -> its 32 nibbles, last first.
 */
export function reversedLabels(address: string): string {
  const parsed = ipaddr.parse(address);
  const ip =
    parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()
      ? (parsed as ipaddr.IPv6).toIPv4Address()
      : parsed;
  const bytes = ip.toByteArray();
  if (ip.kind() === 'ipv4') return bytes.reverse().join('.');
  return bytes
    .flatMap((byte) => [byte >> 4, byte & 0x0f])
    .reverse()
    .map((nibble) => nibble.toString(16))
    .join('.');
}

/** The PTR name of `address`: 10.2.0.192.in-addr.arpa, or ...ip6.arpa. */
export function reverseName(address: string): string {
  return `${reversedLabels(address)}.${ipaddr.parse(address).kind() === 'ipv4' ? 'in-addr.arpa' : 'ip6.arpa'}`;
}

const NOT_FOUND = new Set(['ENOTFOUND', 'ENODATA', 'NXDOMAIN', 'ENONAME']);

/**
 * PTR look-ups on the configured resolvers (`dns.servers`), as `lib/dns/record-resolver.ts`
 * builds its resolver: the PTR name is queried directly, never the hosts file.
 */
export function createPtrLookup(options: { servers: string[]; timeoutMs: number }): PtrLookup {
  const resolver = new Resolver({ timeout: options.timeoutMs, tries: 1 });
  if (options.servers.length > 0) resolver.setServers(options.servers);
  return async (address): Promise<LookupResult<string>> => {
    try {
      const names = (await resolver.resolvePtr(reverseName(address))).map((name) =>
        name.toLowerCase().replace(/\.$/, ''),
      );
      return names.length === 0 ? { kind: 'none' } : { kind: 'found', values: names };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'EUNKNOWN';
      return NOT_FOUND.has(code) ? { kind: 'none' } : { kind: 'temporary', error: code };
    }
  };
}
