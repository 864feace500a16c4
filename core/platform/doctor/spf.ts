import ipaddr from 'ipaddr.js';
import type { DnsLookup } from '../../../lib/dns/dns-resolver.js';

/** RFC 7208 4.6.4: at most 10 mechanisms and modifiers that cause DNS look-ups. */
export const SPF_LOOKUP_LIMIT = 10;

export type SpfResult = 'pass' | 'fail' | 'softfail' | 'neutral' | 'none' | 'permerror' | 'temperror';

type SpfRecord =
  { kind: 'record'; terms: string[] } | { kind: 'none' } | { kind: 'error'; result: SpfResult; why: string };

const QUALIFIERS: Record<string, SpfResult> = { '+': 'pass', '-': 'fail', '~': 'softfail', '?': 'neutral' };
/** Beyond this many nested includes a record is taken to loop. */
const MAX_DEPTH = 10;

/**
 * An SPF evaluator for the doctor: reads the records through the configured resolver, tells
 * whether a given address passes (first matching mechanism wins, include and redirect
 * followed), and counts the look-up terms of the whole tree, which is what a receiver may
 * have to resolve. Macros (`%{...}`) and `ptr` are not expanded: such terms count as
 * look-ups but never match, and are named in `unsupported`.
 */
export class SpfInspector {
  private readonly records = new Map<string, Promise<SpfRecord>>();
  readonly unsupported = new Set<string>();

  constructor(private readonly lookup: DnsLookup) {}

  record(domain: string): Promise<SpfRecord> {
    const name = domain.toLowerCase().replace(/\.$/, '');
    let found = this.records.get(name);
    if (!found) {
      found = this.fetch(name);
      this.records.set(name, found);
    }
    return found;
  }

  private async fetch(domain: string): Promise<SpfRecord> {
    const txt = await this.lookup.txt(domain);
    if (txt.kind === 'temporary') return { kind: 'error', result: 'temperror', why: `TXT ${domain}: ${txt.error}` };
    const spf = txt.kind === 'found' ? txt.values.filter((value) => /^v=spf1(\s|$)/i.test(value.trim())) : [];
    if (spf.length === 0) return { kind: 'none' };
    if (spf.length > 1)
      return { kind: 'error', result: 'permerror', why: `${domain} publishes ${spf.length} SPF records` };
    return { kind: 'record', terms: spf[0]!.trim().split(/\s+/).slice(1) };
  }

  /** Look-up terms in the record at `domain` and everything it includes or redirects to. */
  async lookupCount(domain: string, depth = 0): Promise<{ count: number; errors: string[] }> {
    const record = await this.record(domain);
    if (record.kind === 'none') return { count: 0, errors: depth === 0 ? [] : [`${domain} has no SPF record`] };
    if (record.kind === 'error') return { count: 0, errors: [record.why] };
    if (depth >= MAX_DEPTH) return { count: 0, errors: [`includes nested deeper than ${MAX_DEPTH} at ${domain}`] };
    let count = 0;
    const errors: string[] = [];
    for (const term of record.terms) {
      const { mechanism, argument } = parseTerm(term);
      if (['a', 'mx', 'ptr', 'exists'].includes(mechanism)) count++;
      if (mechanism === 'include' || mechanism === 'redirect') {
        count++;
        if (!argument || argument.includes('%')) continue;
        const inner = await this.lookupCount(argument, depth + 1);
        count += inner.count;
        errors.push(...inner.errors);
      }
    }
    return { count, errors };
  }

  /** The SPF result for mail from `address` under `domain`'s policy (check_host of RFC 7208). */
  async evaluate(address: string, domain: string, depth = 0): Promise<SpfResult> {
    const record = await this.record(domain);
    if (record.kind === 'none') return 'none';
    if (record.kind === 'error') return record.result;
    if (depth >= MAX_DEPTH) return 'permerror';
    const ip = ipaddr.process(address);
    let redirect: string | undefined;
    for (const term of record.terms) {
      const { qualifier, mechanism, argument, cidr4, cidr6 } = parseTerm(term);
      if (mechanism === 'redirect') {
        redirect = argument;
        continue;
      }
      if (term.includes('=')) continue; // other modifiers (exp=) change no result
      if (term.includes('%') || mechanism === 'ptr') {
        this.unsupported.add(term);
        continue;
      }
      let matched: boolean | 'temperror';
      switch (mechanism) {
        case 'all':
          matched = true;
          break;
        case 'ip4':
        case 'ip6':
          matched = inNetwork(ip, argument ?? '', mechanism === 'ip4' ? 32 : 128);
          break;
        case 'a':
          matched = await this.anyAddress([argument ?? domain], ip, cidr4, cidr6);
          break;
        case 'mx': {
          const mx = await this.lookup.mx(argument ?? domain);
          if (mx.kind === 'temporary') matched = 'temperror';
          else if (mx.kind === 'none') matched = false;
          else
            matched = await this.anyAddress(
              mx.values.map((entry) => entry.exchange),
              ip,
              cidr4,
              cidr6,
            );
          break;
        }
        case 'exists': {
          const found = await this.lookup.addresses(argument ?? '');
          matched = found.kind === 'temporary' ? 'temperror' : found.kind === 'found';
          break;
        }
        case 'include': {
          if (!argument) return 'permerror';
          const inner = await this.evaluate(address, argument, depth + 1);
          if (inner === 'temperror') return 'temperror';
          if (inner === 'permerror' || inner === 'none') return 'permerror';
          matched = inner === 'pass';
          break;
        }
        default:
          return 'permerror';
      }
      if (matched === 'temperror') return matched;
      if (matched) return QUALIFIERS[qualifier]!;
    }
    if (redirect) {
      const target = await this.evaluate(address, redirect, depth + 1);
      return target === 'none' ? 'permerror' : target;
    }
    return 'neutral';
  }

  private async anyAddress(
    hosts: string[],
    ip: ipaddr.IPv4 | ipaddr.IPv6,
    cidr4: number,
    cidr6: number,
  ): Promise<boolean | 'temperror'> {
    for (const host of hosts) {
      const found = await this.lookup.addresses(host);
      if (found.kind === 'temporary') return 'temperror';
      if (found.kind === 'none') continue;
      for (const value of found.values) {
        if (!ipaddr.isValid(value)) continue;
        const candidate = ipaddr.process(value);
        if (candidate.kind() !== ip.kind()) continue;
        if (ip.match(candidate, candidate.kind() === 'ipv4' ? cidr4 : cidr6)) return true;
      }
    }
    return false;
  }
}

function parseTerm(term: string): {
  qualifier: string;
  mechanism: string;
  argument?: string;
  cidr4: number;
  cidr6: number;
} {
  const qualifier = /^[+\-~?]/.test(term) ? term[0]! : '+';
  const body = qualifier === term[0] ? term.slice(1) : term;
  const modifier = /^([a-z][a-z0-9_.-]*)=(.*)$/i.exec(body);
  if (modifier)
    return { qualifier, mechanism: modifier[1]!.toLowerCase(), argument: modifier[2], cidr4: 32, cidr6: 128 };
  const [, name = '', rest = ''] = /^([a-z0-9]+)(.*)$/i.exec(body) ?? [];
  const mechanism = name.toLowerCase();
  if (mechanism === 'ip4' || mechanism === 'ip6')
    return { qualifier, mechanism, argument: rest.replace(/^:/, ''), cidr4: 32, cidr6: 128 };
  // a[:domain][/cidr4][//cidr6], and the same for mx
  const cidrs = /^(?::([^/]*))?(?:\/(\d+))?(?:\/\/(\d+))?$/.exec(rest);
  return {
    qualifier,
    mechanism,
    argument: cidrs?.[1] || undefined,
    cidr4: cidrs?.[2] ? Number(cidrs[2]) : 32,
    cidr6: cidrs?.[3] ? Number(cidrs[3]) : 128,
  };
}

function inNetwork(ip: ipaddr.IPv4 | ipaddr.IPv6, network: string, fullLength: number): boolean {
  try {
    const [range, prefix] = network.includes('/')
      ? ipaddr.parseCIDR(network)
      : ([ipaddr.parse(network), fullLength] as const);
    const normalized =
      range.kind() === 'ipv6' && (range as ipaddr.IPv6).isIPv4MappedAddress()
        ? (range as ipaddr.IPv6).toIPv4Address()
        : range;
    return normalized.kind() === ip.kind() && ip.match(normalized, prefix);
  } catch {
    return false;
  }
}
