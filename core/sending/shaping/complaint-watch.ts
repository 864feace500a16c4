import type { Clock } from '../../../lib/clock.js';
import type { KeyValueStore } from '../../../lib/kv/kv.js';
import type { DeliverabilityActions } from './deliverability-actions.service.js';
import { utcDay } from './ip-warmup.service.js';
import type { ProviderMatcher } from './provider-matcher.js';

const DAY_MS = 86_400_000;
const COUNTER_TTL_MS = 3 * DAY_MS;

export type ComplaintWatchSettings = { complaintRate: number; minimumDelivered: number; suspendHours: number };

/**
 * A team's complaint rate at each provider, for its marketing (broadcast) mail: deliveries are
 * counted by the mta, complaints by the inbound feedback loop, per UTC day in the shared store.
 * When complaints over today and yesterday pass the threshold (with enough volume to mean
 * something), the team's marketing to that provider is suspended for a while: Gmail and Yahoo
 * start rejecting a sender above 0.3%, and every other sender on the same addresses pays.
 */
export class ComplaintWatch {
  constructor(
    private readonly deps: {
      kv: KeyValueStore;
      clock: Clock;
      actions: DeliverabilityActions;
      providers: ProviderMatcher;
      settings: ComplaintWatchSettings;
    },
  ) {}

  /** Marketing messages delivered to a provider (the mta calls it; no I/O beyond one counter). */
  async delivered(teamId: string, provider: string, count: number): Promise<void> {
    await this.deps.kv.incrementUpTo(
      this.key('delivered', teamId, provider, this.today()),
      count,
      Number.MAX_SAFE_INTEGER,
      COUNTER_TTL_MS,
    );
  }

  /** A complaint about a marketing message to `address`; suspends the team there when the rate is too high. */
  async complained(teamId: string, address: string): Promise<boolean> {
    const domain = address.slice(address.lastIndexOf('@') + 1).toLowerCase();
    const provider = await this.deps.providers.providerOf(domain);
    const today = this.today();
    await this.deps.kv.incrementUpTo(
      this.key('complaints', teamId, provider.key, today),
      1,
      Number.MAX_SAFE_INTEGER,
      COUNTER_TTL_MS,
    );
    const { complaints, delivered } = await this.window(teamId, provider.key);
    const { complaintRate, minimumDelivered, suspendHours } = this.deps.settings;
    if (delivered < minimumDelivered || complaints / delivered <= complaintRate) return false;
    const state = await this.deps.actions.inForce();
    if (state.suspension(teamId, provider.key, this.deps.clock.now())) return false;
    const rate = ((complaints / delivered) * 100).toFixed(2);
    await this.deps.actions.suspendMarketing(
      teamId,
      provider.key,
      `complaint rate ${rate}% (${complaints} of ${delivered} delivered) is above ${(complaintRate * 100).toFixed(2)}%`,
      suspendHours,
    );
    return true;
  }

  /** Complaints and deliveries of today and yesterday. */
  async window(teamId: string, provider: string): Promise<{ complaints: number; delivered: number }> {
    const now = this.deps.clock.now();
    const days = [utcDay(now), utcDay(new Date(now.getTime() - DAY_MS))];
    const read = (kind: string) =>
      Promise.all(days.map((day) => this.deps.kv.counter(this.key(kind, teamId, provider, day)))).then((v) =>
        v.reduce((a, b) => a + b, 0),
      );
    return { complaints: await read('complaints'), delivered: await read('delivered') };
  }

  private today(): string {
    return utcDay(this.deps.clock.now());
  }

  private key(kind: string, teamId: string, provider: string, day: string): string {
    return `complaints:${kind}:${teamId}:${provider}:${day}`;
  }
}
