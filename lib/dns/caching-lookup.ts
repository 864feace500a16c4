import type { DnsLookup, LookupResult } from './dns-resolver.js';

export type CachingLookupOptions = {
  /** A found answer is reused this long without asking again (0: every call asks). */
  freshMs: number;
  /** A temporary failure (SERVFAIL, time-out) is answered with a found answer up to this old. */
  staleMs: number;
  now?: () => number;
};

/** Names remembered at most (destinations an MTA sends to in a few minutes). */
const LIMIT = 10_000;

type Entry = { at: number; result: LookupResult<unknown> & { kind: 'found' } };

/**
 * MX and address look-ups for the MTA, remembered briefly. Every claim resolves its
 * destination's route, and a busy destination is claimed many times a second: without this,
 * each claim waits for three queries to the resolver (MX, A, AAAA) before its connection is
 * even looked for, and one lost UDP answer under load can defer a whole claim. Node's resolver
 * does not give the TTL of MX records, so a found answer is kept a fixed, short time (below
 * the TTL of almost any real zone); while the resolver fails temporarily, an answer found
 * within `staleMs` is used instead (serve-stale, RFC 8767), as a caching resolver would.
 * "None" answers and failures are never kept: a domain that fixes its DNS is seen at once.
 * Concurrent look-ups of one name share one query.
 */
export function cachingLookup(inner: DnsLookup, options: CachingLookupOptions): DnsLookup {
  const now = options.now ?? Date.now;
  const entries = new Map<string, Entry>();
  const inFlight = new Map<string, Promise<LookupResult<unknown>>>();

  const cached =
    <T>(kind: string, ask: (name: string) => Promise<LookupResult<T>>) =>
    async (name: string): Promise<LookupResult<T>> => {
      const key = `${kind}:${name.toLowerCase()}`;
      const entry = entries.get(key);
      if (entry && now() - entry.at < options.freshMs) return entry.result as LookupResult<T>;
      let pending = inFlight.get(key) as Promise<LookupResult<T>> | undefined;
      if (!pending) {
        pending = ask(name).finally(() => inFlight.delete(key));
        inFlight.set(key, pending);
      }
      const result = await pending;
      if (result.kind === 'found') {
        // Oldest first in insertion order: a name set again moves to the end.
        entries.delete(key);
        if (entries.size >= LIMIT) entries.delete(entries.keys().next().value!);
        entries.set(key, { at: now(), result });
        return result;
      }
      if (result.kind === 'temporary' && entry && now() - entry.at < options.staleMs)
        return entry.result as LookupResult<T>;
      if (result.kind === 'none') entries.delete(key);
      return result;
    };

  return {
    ...inner,
    mx: cached('mx', (name) => inner.mx(name)),
    addresses: cached('addresses', (name) => inner.addresses(name)),
  };
}
