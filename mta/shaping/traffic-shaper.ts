import { randomBytes } from 'node:crypto';
import type { DeliveryService } from '../../core/sending/deliveries/delivery.service.js';
import type { Provider } from '../../core/sending/shaping/provider-matcher.js';
import type { ShapingServices } from '../../core/sending/shaping/shaping.services.js';
import type { Clock } from '../../lib/clock.js';
import type { DnsLookup } from '../../lib/dns/dns-resolver.js';
import type { KeyValueStore } from '../../lib/kv/kv.js';
import type { ProcessMetrics } from '../../lib/metrics/process-metrics.js';
import type { DeliveryBatch } from '../delivery/delivery-batch.js';
import type { SendShape } from '../delivery/destination-delivery.js';

export type WaitReason = 'pause' | 'suspended' | 'connections' | 'rate' | 'warmup';

/** A connection slot not given back (its process died) frees itself after this long. */
const SLOT_TTL_MS = 10 * 60_000;
/** How long a destination's sending waits for a connection slot before its batches go back to wait. */
const SLOT_WAIT_MS = 10_000;
const SLOT_POLL_MS = 200;
/** A rate-limited message waits this long in place at most; longer, it goes back to the queue. */
const RATE_WAIT_IN_PLACE_MS = 3000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Mail put back to wait comes due spread over a few seconds, not all in the same poll. */
const jitter = (ms: number) => ms + Math.floor(Math.random() * Math.min(30_000, Math.max(1000, ms / 10)));

/**
 * Mail held back by an action waits until the action ends, but looks again within ten minutes:
 * an operator who lifts the action early does not leave it waiting for the original end.
 */
const RECHECK_MS = 10 * 60_000;
const recheckBy = (endsAt: Date, now: Date) => new Date(Math.min(endsAt.getTime(), now.getTime() + jitter(RECHECK_MS)));

type Send = (
  batches: DeliveryBatch[],
  shape: SendShape,
) => Promise<{ settled: Promise<void>; unsent: DeliveryBatch[] }>;

/**
 * Runs one destination's sending from one address under its provider's rule: nothing while the
 * (provider, address) pair is paused or the team's marketing there is suspended, at most the
 * provider's connections at once across every mta process (a semaphore in the shared store),
 * its messages per hour (a token bucket there), a fresh connection every N messages and a pause
 * between messages. A slowed pair gets its share (factor) of the connections and the rate.
 * What cannot go now goes back to the queue without an attempt, due when it may go.
 */
export class TrafficShaper {
  constructor(
    private readonly deps: {
      shaping: ShapingServices;
      deliveries: DeliveryService;
      kv: KeyValueStore;
      clock: Clock;
      /** The worker's caching resolver: the MX answer is the one the delivery then uses. */
      lookup: DnsLookup;
      /** The connections a provider without its own limit gets per address (mta.perDestinationConcurrency). */
      perDestination: number;
      metrics?: ProcessMetrics;
      holder: string;
    },
  ) {}

  get enabled(): boolean {
    return this.deps.shaping.enabled;
  }

  async providerOf(domain: string): Promise<Provider> {
    if (!this.enabled) return { key: `domain:${domain}`, name: null, limits: {} };
    return this.deps.shaping.providers.providerOf(domain, this.deps.lookup);
  }

  /** Sends `batches` to `domain` from `ip` under the provider's limits; resolves when the sending is over. */
  async deliver(
    provider: Provider,
    ip: string,
    batches: DeliveryBatch[],
    send: Send,
  ): Promise<{ settled: Promise<void> }> {
    if (!this.enabled) return send(batches, {});
    const { actions } = this.deps.shaping;
    const state = await actions.inForce();
    const now = this.deps.clock.now();
    const pause = state.pause(provider.key, ip, now);
    if (pause) return this.putBack(batches, recheckBy(pause.endsAt, now), 'pause');
    const suspended = batches.filter(
      (b) => b.email.broadcastId !== null && state.suspension(b.email.teamId, provider.key, now),
    );
    if (suspended.length > 0) {
      const until = state.suspension(suspended[0]!.email.teamId, provider.key, now)!.endsAt;
      await this.putBack(suspended, recheckBy(until, now), 'suspended');
      batches = batches.filter((b) => !suspended.includes(b));
      if (batches.length === 0) return { settled: Promise.resolve() };
    }
    const factor = state.factor(provider.key, ip, now);
    const slot = await this.connectionSlot(provider, ip, factor);
    if (slot === null) return this.putBack(batches, new Date(now.getTime() + jitter(5000)), 'connections');
    let heldUntil: { at: Date; reason: WaitReason } | null = null;
    try {
      const result = await send(batches, {
        messagesPerConnection: provider.limits.messagesPerConnection,
        pacingMs: provider.limits.pacingMs,
        admit: async () => {
          heldUntil = await this.admit(provider, ip);
          return heldUntil === null;
        },
      });
      const held = heldUntil as { at: Date; reason: WaitReason } | null;
      if (result.unsent.length > 0 && held) await this.putBack(result.unsent, held.at, held.reason);
      return result;
    } finally {
      await slot();
    }
  }

  /** Deliveries that may not go now wait until `until`, with no attempt counted. */
  async putBack(batches: DeliveryBatch[], until: Date, reason: WaitReason): Promise<{ settled: Promise<void> }> {
    const deliveries = batches.flatMap((b) => b.deliveries);
    await this.deps.deliveries.postpone(deliveries, until);
    this.deps.metrics?.shapingWaits.inc({ reason }, deliveries.length);
    return { settled: Promise.resolve() };
  }

  /** Before each message: null when it may go, else until when it waits and why. */
  private async admit(provider: Provider, ip: string): Promise<{ at: Date; reason: WaitReason } | null> {
    const state = await this.deps.shaping.actions.inForce();
    const now = this.deps.clock.now();
    const pause = state.pause(provider.key, ip, now);
    if (pause) return { at: recheckBy(pause.endsAt, now), reason: 'pause' };
    const perHour = provider.limits.messagesPerHour;
    if (!perHour) return null;
    const factor = state.factor(provider.key, ip, now);
    // A bucket of ten seconds' worth: short bursts pass, a backlog goes out at the rate.
    const rate = (perHour * factor) / 3600;
    const capacity = Math.max(1, Math.ceil((perHour * factor) / 360));
    for (;;) {
      const taken = await this.deps.kv.takeToken(`shape:rate:${provider.key}:${ip}`, capacity, rate);
      if (taken.allowed) return null;
      if (taken.msUntilToken > RATE_WAIT_IN_PLACE_MS)
        return { at: new Date(this.deps.clock.now().getTime() + jitter(taken.msUntilToken)), reason: 'rate' };
      await sleep(taken.msUntilToken);
    }
  }

  /**
   * One of the provider's connections from `ip` (across processes), waiting a little for one:
   * the release function, or null when none came free. No limit and no slowing: no slot needed.
   */
  private async connectionSlot(provider: Provider, ip: string, factor: number): Promise<(() => Promise<void>) | null> {
    const max = provider.limits.maxConnections;
    if (max === undefined && factor >= 1) return async () => undefined;
    const limit = Math.max(1, Math.floor((max ?? this.deps.perDestination) * factor));
    const key = `shape:conn:${provider.key}:${ip}`;
    const holder = `${this.deps.holder}:${randomBytes(6).toString('hex')}`;
    const deadline = Date.now() + SLOT_WAIT_MS;
    while (!(await this.deps.kv.acquireSlot(key, holder, limit, SLOT_TTL_MS))) {
      if (Date.now() >= deadline) return null;
      await sleep(SLOT_POLL_MS);
    }
    return () => this.deps.kv.releaseSlot(key, holder);
  }
}
