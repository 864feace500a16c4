import ipaddr from 'ipaddr.js';

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;

/**
 * Which addresses the service may connect to on a caller's behalf (webhook endpoints, attachment
 * URLs): only global unicast. An address is judged by what it reaches, so every IPv6 form that
 * carries an IPv4 address (IPv4-mapped in any spelling, IPv4-compatible, SIIT, NAT64, 6to4,
 * Teredo) is judged as the IPv4 address inside it as well. The ranges come from ipaddr.js, a
 * maintained classification, rather than a list of our own; an explicit allow-list (tests, an
 * operator's internal file server) overrides the policy.
 */
export class AddressPolicy {
  private readonly allowed: Array<[IPv4 | IPv6, number]>;

  /** `allow`: addresses or CIDRs (a.b.c.d/nn, x::/nn) exempt from the policy. */
  constructor(allow: string[] = []) {
    this.allowed = allow.map((entry) =>
      entry.includes('/') ? ipaddr.parseCIDR(entry) : hostRange(ipaddr.parse(entry)),
    );
  }

  /** `address`: a literal IPv4 or IPv6 address as a resolver or a WHATWG URL gives it. */
  permits(address: string): boolean {
    const parsed = parseLiteral(address);
    if (!parsed) return false;
    if (this.isAllowed(parsed)) return true;
    if (parsed.kind() === 'ipv4') return isGlobalIPv4(parsed as IPv4);
    const v6 = parsed as IPv6;
    const embedded = embeddedIPv4(v6);
    if (embedded === 'refuse') return false;
    if (embedded) return embedded.every((inner) => this.isAllowed(inner) || isGlobalIPv4(inner));
    return v6.range() === 'unicast';
  }

  private isAllowed(address: IPv4 | IPv6): boolean {
    return this.allowed.some(([network, bits]) => network.kind() === address.kind() && address.match(network, bits));
  }
}

/** Only strict dotted quads and IPv6 literals: other IPv4 spellings are the URL parser's job. */
function parseLiteral(address: string): IPv4 | IPv6 | undefined {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (ipaddr.IPv4.isValidFourPartDecimal(bare)) return ipaddr.IPv4.parse(bare);
  if (ipaddr.IPv6.isValid(bare)) return ipaddr.IPv6.parse(bare);
  return undefined;
}

function hostRange(address: IPv4 | IPv6): [IPv4 | IPv6, number] {
  return [address, address.kind() === 'ipv4' ? 32 : 128];
}

function isGlobalIPv4(address: IPv4): boolean {
  return address.range() === 'unicast';
}

/**
 * The IPv4 addresses an IPv6 address delivers to, for the forms that embed one; 'refuse' for
 * translation prefixes whose layout is the operator's (NAT64 local-use 64:ff9b:1::/48), which
 * are never global; undefined when the address embeds none.
 */
function embeddedIPv4(address: IPv6): IPv4[] | 'refuse' | undefined {
  const parts = address.parts;
  const v4 = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
  const lastFour = () => [v4(parts[6]!, parts[7]!)];
  switch (address.range()) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d
    case 'rfc6145': // SIIT ::ffff:0:a.b.c.d
      return lastFour();
    case 'rfc6052': // NAT64 well-known 64:ff9b::/96; local-use 64:ff9b:1::/48
      return parts[2] === 0 ? lastFour() : 'refuse';
    case '6to4': // 2002:AABB:CCDD::/48
      return [v4(parts[1]!, parts[2]!)];
    case 'teredo': // 2001:0:SERVER:flags:port:~CLIENT (the client's address is stored inverted)
      return [v4(parts[2]!, parts[3]!), v4(~parts[6]! & 0xffff, ~parts[7]! & 0xffff)];
    default:
      break;
  }
  // Deprecated IPv4-compatible ::a.b.c.d (::/96, which also holds :: and ::1).
  if (parts.slice(0, 6).every((part) => part === 0)) return lastFour();
  return undefined;
}
