import { BlockList, isIP } from 'node:net';

/**
 * Addresses the service must never fetch from on a caller's behalf: loopback, private,
 * link-local (cloud metadata), carrier-grade NAT, multicast, unspecified and their IPv6 forms.
 * An explicit allow-list (tests, an operator's internal file server) overrides it.
 */
const blocked = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) blocked.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['64:ff9b::', 96]] as const) {
  blocked.addSubnet(network, prefix, 'ipv6');
}
// No rule for ::ffff:0:0/96: BlockList matches IPv4-mapped addresses against the IPv4 rules
// itself, and such a rule would match every IPv4 address.

export class AddressPolicy {
  private readonly allowed = new BlockList();

  /** `allow`: addresses or CIDRs (a.b.c.d/nn, x::/nn) exempt from the block list. */
  constructor(allow: string[] = []) {
    for (const entry of allow) {
      const [address, prefix] = entry.split('/');
      const family = isIP(address ?? '') === 6 ? 'ipv6' : 'ipv4';
      if (prefix === undefined) this.allowed.addAddress(address!, family);
      else this.allowed.addSubnet(address!, Number(prefix), family);
    }
  }

  permits(address: string): boolean {
    const family = isIP(address) === 6 ? 'ipv6' : isIP(address) === 4 ? 'ipv4' : undefined;
    if (!family) return false;
    if (this.allowed.check(address, family)) return true;
    // IPv4-mapped IPv6 (::ffff:127.0.0.1) is judged as the IPv4 address it carries.
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return this.permits(mapped[1]!);
    return !blocked.check(address, family);
  }
}
