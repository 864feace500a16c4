import type { DnsLookup } from '../../../lib/dns/dns-resolver.js';
import type { KeyValueStore } from '../../../lib/kv/kv.js';
import type { Logger } from '../../../lib/logger.js';
import type { StsFetcher } from './mta-sts-fetcher.js';
import { parseStsPolicy, parseStsRecord, type StsPolicy } from './mta-sts-policy.js';

/** What applies to a destination domain under MTA-STS now. */
export type StsState =
  | { kind: 'none' }
  | { kind: 'policy'; policy: StsPolicy; id: string }
  /** A TXT record says there is a policy but none could be had (and none is cached): deliver as without, and report. */
  | {
      kind: 'unavailable';
      failure: 'sts-policy-fetch-error' | 'sts-policy-invalid' | 'sts-webpki-invalid';
      detail: string;
    };

type Cached = { id: string; text: string; policy: StsPolicy; expiresAt: number };

/** A policy host that failed is not asked again for the same id sooner than this. */
const RETRY_FAILED_MS = 5 * 60_000;

const kvKey = (domain: string) => `mta-sts:policy:${domain}`;

/**
 * MTA-STS policies per destination (RFC 8461 5.1): kept in memory and in the shared store (so
 * other MTA processes and nodes reuse a fetch) until max_age runs out; fetched again when the
 * `_mta-sts` TXT id changes; a failed refresh keeps the cached policy. One fetch at a time per
 * domain in this process.
 */
export class MtaStsCache {
  private readonly memory = new Map<string, Cached>();
  private readonly fetching = new Map<string, Promise<StsState>>();
  /** The last failed refresh per domain: not tried again for the same id for a while. */
  private readonly failed = new Map<string, { id: string; at: number; state: StsState }>();

  constructor(
    private readonly deps: {
      lookup: DnsLookup;
      fetch: StsFetcher;
      kv?: KeyValueStore;
      logger: Logger;
      now?: () => number;
    },
  ) {}

  async stateOf(domain: string): Promise<StsState> {
    const name = domain.toLowerCase();
    const txt = await this.deps.lookup.txt(`_mta-sts.${name}`);
    const id = txt.kind === 'found' ? parseStsRecord(txt.values) : null;
    const local = this.fromMemory(name);
    // No TXT (removed, or DNS failing) leaves a cached policy in force until it expires (5.1).
    if (local && (id === null || id === local.id)) return { kind: 'policy', policy: local.policy, id: local.id };
    // Most domains publish nothing: they cost no trip to the shared store.
    if (id === null) return { kind: 'none' };
    const shared = await this.fromStore(name);
    if (shared?.id === id) return { kind: 'policy', policy: shared.policy, id };
    const cached = local ?? shared;
    const failed = this.failed.get(name);
    if (failed?.id === id && this.now() - failed.at < RETRY_FAILED_MS) return failed.state;
    const running = this.fetching.get(name);
    if (running) return running;
    const work = this.refresh(name, id, cached).finally(() => this.fetching.delete(name));
    this.fetching.set(name, work);
    return work;
  }

  private async refresh(domain: string, id: string, cached: Cached | null): Promise<StsState> {
    const fetched = await this.deps.fetch(domain);
    const parsed = fetched.kind === 'fetched' ? parseStsPolicy(fetched.text) : null;
    if (parsed && 'policy' in parsed) {
      const entry: Cached = {
        id,
        text: fetched.kind === 'fetched' ? fetched.text : '',
        policy: parsed.policy,
        expiresAt: this.now() + parsed.policy.maxAgeSeconds * 1000,
      };
      await this.store(domain, entry);
      this.failed.delete(domain);
      return { kind: 'policy', policy: entry.policy, id };
    }
    const failure =
      fetched.kind === 'failed'
        ? { failure: fetched.failure, detail: fetched.detail }
        : { failure: 'sts-policy-invalid' as const, detail: (parsed as { error: string }).error };
    this.deps.logger.warn({ domain, ...failure }, 'MTA-STS policy could not be refreshed');
    const state: StsState = cached
      ? { kind: 'policy', policy: cached.policy, id: cached.id }
      : { kind: 'unavailable', ...failure };
    this.failed.set(domain, { id, at: this.now(), state });
    return state;
  }

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }

  private fromMemory(domain: string): Cached | null {
    const local = this.memory.get(domain);
    if (local && local.expiresAt > this.now()) return local;
    this.memory.delete(domain);
    return null;
  }

  /** Another process's unexpired copy, kept here from now on. */
  private async fromStore(domain: string): Promise<Cached | null> {
    const shared = await this.deps.kv?.get(kvKey(domain)).catch(() => null);
    if (!shared) return null;
    try {
      const { id, text, expiresAt } = JSON.parse(shared) as { id: string; text: string; expiresAt: number };
      const parsed = parseStsPolicy(text);
      if (!('policy' in parsed) || expiresAt <= this.now()) return null;
      const entry = { id, text, policy: parsed.policy, expiresAt };
      this.memory.set(domain, entry);
      return entry;
    } catch {
      return null;
    }
  }

  private async store(domain: string, entry: Cached): Promise<void> {
    this.memory.set(domain, entry);
    const ttlMs = entry.expiresAt - this.now();
    if (!this.deps.kv || ttlMs <= 0) return;
    const value = JSON.stringify({ id: entry.id, text: entry.text, expiresAt: entry.expiresAt });
    // The store has no plain set: replace. A concurrent writer's copy is as good as ours.
    await this.deps.kv
      .delete(kvKey(domain))
      .then(() => this.deps.kv!.setIfAbsent(kvKey(domain), value, ttlMs))
      .catch((err: unknown) => this.deps.logger.warn({ err, domain }, 'could not share an MTA-STS policy'));
  }
}
