import { Resolver } from 'node:dns/promises';

/**
 * DNS look-ups as values (mailauth's convention): a name with no such records is `none`, a
 * SERVFAIL, refusal or timeout is `temporary` and never read as "the record is missing".
 * The resolver is a parameter everywhere, so tests point it at a DNS server they declare.
 */
export type LookupResult<T> = { kind: 'found'; values: T[] } | { kind: 'none' } | { kind: 'temporary'; error: string };

export type MxRecord = { exchange: string; priority: number };

export interface DnsLookup {
  txt(name: string): Promise<LookupResult<string>>;
  mx(name: string): Promise<LookupResult<MxRecord>>;
  cname(name: string): Promise<LookupResult<string>>;
  /** IPv4 and IPv6 addresses of a host (A and AAAA together). */
  addresses(name: string): Promise<LookupResult<string>>;
  /** Whether `name` is the apex of a zone (has an SOA record itself). */
  soa(name: string): Promise<LookupResult<{ nsname: string }>>;
}

const NOT_FOUND = new Set(['ENOTFOUND', 'ENODATA', 'NXDOMAIN', 'ENONAME']);

async function classify<T>(lookup: () => Promise<T[]>): Promise<LookupResult<T>> {
  try {
    const values = await lookup();
    return values.length === 0 ? { kind: 'none' } : { kind: 'found', values };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'EUNKNOWN';
    return NOT_FOUND.has(code) ? { kind: 'none' } : { kind: 'temporary', error: code };
  }
}

export function createDnsLookup(options: { servers: string[]; timeoutMs: number }): DnsLookup {
  // tries: 1 so that a dead server is a prompt temporary failure rather than a long wait.
  const resolver = new Resolver({ timeout: options.timeoutMs, tries: 1 });
  if (options.servers.length > 0) resolver.setServers(options.servers);
  const lower = (name: string) => name.toLowerCase().replace(/\.$/, '');
  return {
    txt: (name) => classify(async () => (await resolver.resolveTxt(name)).map((chunks) => chunks.join(''))),
    mx: (name) =>
      classify(async () =>
        (await resolver.resolveMx(name)).map((mx) => ({ exchange: lower(mx.exchange), priority: mx.priority })),
      ),
    cname: (name) => classify(async () => (await resolver.resolveCname(name)).map(lower)),
    addresses: async (name) => {
      const [v4, v6] = await Promise.all([
        classify(() => resolver.resolve4(name)),
        classify(() => resolver.resolve6(name)),
      ]);
      if (v4.kind === 'temporary' && v6.kind !== 'found') return v4;
      const values = [...(v4.kind === 'found' ? v4.values : []), ...(v6.kind === 'found' ? v6.values : [])];
      return values.length > 0 ? { kind: 'found', values } : v6.kind === 'temporary' ? v6 : { kind: 'none' };
    },
    soa: (name) => classify(async () => [await resolver.resolveSoa(name)].map((soa) => ({ nsname: soa.nsname }))),
  };
}

/**
 * The same look-ups, telling `onTemporary` of each temporary failure (for the metrics): a
 * resolver that times out or answers SERVFAIL shows up before mail starts to wait on it.
 */
export function reportingTemporaryFailures(
  lookup: DnsLookup,
  onTemporary: (type: keyof DnsLookup, code: string) => void,
): DnsLookup {
  const watch =
    <T>(type: keyof DnsLookup, ask: (name: string) => Promise<LookupResult<T>>) =>
    async (name: string) => {
      const result = await ask(name);
      if (result.kind === 'temporary') onTemporary(type, result.error);
      return result;
    };
  return {
    txt: watch('txt', (name) => lookup.txt(name)),
    mx: watch('mx', (name) => lookup.mx(name)),
    cname: watch('cname', (name) => lookup.cname(name)),
    addresses: watch('addresses', (name) => lookup.addresses(name)),
    soa: watch('soa', (name) => lookup.soa(name)),
  };
}
