import type { Knex } from 'knex';
import type { Clock } from '../../../lib/clock.js';
import type { KeyValueStore } from '../../../lib/kv/kv.js';
import { IpWarmupRepository, type IpWarmup } from './ip-warmup.repository.js';
import type { WarmupSchedule } from './shaping.types.js';

const DAY_MS = 86_400_000;
/** Counters outlive their day by a day, so yesterday's figures can still be read. */
const COUNTER_TTL_MS = 2 * DAY_MS;
/** How long the mta relies on the list of warming addresses it read. */
const LIST_CACHE_MS = 5000;

export const utcDay = (date: Date) => date.toISOString().slice(0, 10);
export const nextUtcDay = (date: Date) => new Date(Math.floor(date.getTime() / DAY_MS + 1) * DAY_MS);

/** Day 1 is the day the warm-up started. */
export function warmupDay(startedOn: string, now: Date): number {
  return Math.floor((Date.parse(`${utcDay(now)}T00:00:00Z`) - Date.parse(`${startedOn}T00:00:00Z`)) / DAY_MS) + 1;
}

export type WarmupTake = { allowed: true } | { allowed: false; allowance: number };

/** What one provider (or `default`) may receive from a warming address today, and what it received. */
export type WarmupProviderStatus = {
  provider: string;
  allowance: number | null;
  sent: number;
  answers: Record<string, number>;
};

export type WarmupStatus = {
  address: string;
  startedOn: string;
  day: number;
  /** Days in the longest schedule: after it, the address is warm. */
  days: number;
  complete: boolean;
  sentToday: number;
  providers: WarmupProviderStatus[];
};

const REPLY_CLASSES = ['2xx', '4xx', '5xx', 'connection'] as const;

/**
 * IP warm-up. A warming address takes, per provider and UTC day, no more than its schedule's
 * allowance for that day (broadcast mail only bulkShare of it, so transactional mail keeps the
 * rest); the caller moves what is refused to warm addresses or lets it wait for the next day.
 * Counts live in the shared store (every mta node draws from the same allowance).
 */
export class IpWarmupService {
  readonly repository: IpWarmupRepository;
  private cached: { at: number; value: Promise<Map<string, IpWarmup>> } | null = null;

  constructor(
    private readonly deps: {
      knex: Knex;
      clock: Clock;
      kv: KeyValueStore;
      schedule: WarmupSchedule;
      bulkShare: number;
    },
  ) {
    this.repository = new IpWarmupRepository(deps.knex);
  }

  /** Warming addresses (read at most every 5 s per process); empty when none is warming. */
  warming(): Promise<Map<string, IpWarmup>> {
    const now = Date.now();
    if (!this.cached || now - this.cached.at > LIST_CACHE_MS) {
      const value = this.repository.list().then((rows) => {
        const today = this.deps.clock.now();
        return new Map(rows.filter((row) => !this.isComplete(row, today)).map((row) => [row.address, row]));
      });
      value.catch(() => (this.cached = null));
      this.cached = { at: now, value };
    }
    return this.cached.value;
  }

  /** When the next UTC day starts, by the appliance's clock (tomorrow's allowance). */
  tomorrow(): Date {
    return nextUtcDay(this.deps.clock.now());
  }

  async start(address: string, startedOn = utcDay(this.deps.clock.now())): Promise<void> {
    await this.repository.upsert({ address, startedOn, createdAt: this.deps.clock.now() });
    this.cached = null;
  }

  async stop(address: string): Promise<boolean> {
    const removed = await this.repository.remove(address);
    this.cached = null;
    return removed;
  }

  /** The allowance for `provider` (its name, or null for the generic default) on `day`; null: no limit (warm). */
  allowance(provider: string | null, day: number): number | null {
    const table = this.deps.schedule[provider ?? 'default'] ?? this.deps.schedule.default ?? [];
    return day >= 1 && day <= table.length ? table[day - 1]! : null;
  }

  /**
   * Takes `count` messages of today's allowance of a warming address for a provider (`key`: the
   * provider or the destination domain; `name`: the provider's name for the schedule).
   */
  async take(
    warmup: IpWarmup,
    provider: { key: string; name: string | null },
    count: number,
    lane: 'transactional' | 'bulk',
  ): Promise<WarmupTake> {
    const now = this.deps.clock.now();
    const allowance = this.allowance(provider.name, warmupDay(warmup.startedOn, now));
    if (allowance === null) return { allowed: true };
    const limit = lane === 'bulk' ? Math.floor(allowance * this.deps.bulkShare) : allowance;
    const day = utcDay(now);
    const taken = await this.deps.kv.incrementUpTo(
      this.sentKey(warmup.address, provider.key, day),
      count,
      limit,
      COUNTER_TTL_MS,
    );
    if (taken === null) return { allowed: false, allowance };
    await this.deps.kv.incrementUpTo(
      this.sentKey(warmup.address, '*', day),
      count,
      Number.MAX_SAFE_INTEGER,
      COUNTER_TTL_MS,
    );
    return { allowed: true };
  }

  /** Counts a receiver's answer to a warming address (shown in its status). */
  async countAnswer(address: string, provider: string, replyClass: (typeof REPLY_CLASSES)[number]): Promise<void> {
    const key = `warm:answers:${address}:${provider}:${utcDay(this.deps.clock.now())}:${replyClass}`;
    await this.deps.kv.incrementUpTo(key, 1, Number.MAX_SAFE_INTEGER, COUNTER_TTL_MS);
  }

  /** Progress of every warming address (and those whose schedule just completed). */
  async status(providers: string[]): Promise<WarmupStatus[]> {
    const now = this.deps.clock.now();
    const day = utcDay(now);
    const rows = await this.repository.list();
    return Promise.all(
      rows.map(async (row) => {
        const current = warmupDay(row.startedOn, now);
        const named = [...new Set([...providers, ...Object.keys(this.deps.schedule)])].filter((p) => p !== 'default');
        const perProvider = await Promise.all(
          named.map(async (provider) => ({
            provider,
            allowance: this.allowance(provider, current),
            sent: await this.deps.kv.counter(this.sentKey(row.address, provider, day)),
            answers: Object.fromEntries(
              await Promise.all(
                REPLY_CLASSES.map(
                  async (c) =>
                    [c, await this.deps.kv.counter(`warm:answers:${row.address}:${provider}:${day}:${c}`)] as const,
                ),
              ),
            ),
          })),
        );
        const sentToday = await this.deps.kv.counter(this.sentKey(row.address, '*', day));
        // Destinations no provider rule names count per domain: together they are the rest.
        const rest = sentToday - perProvider.reduce((sum, p) => sum + p.sent, 0);
        return {
          address: row.address,
          startedOn: row.startedOn,
          day: current,
          days: this.scheduleDays(),
          complete: this.isComplete(row, now),
          sentToday,
          providers: [
            ...perProvider,
            { provider: 'default', allowance: this.allowance(null, current), sent: Math.max(0, rest), answers: {} },
          ],
        };
      }),
    );
  }

  private sentKey(address: string, provider: string, day: string): string {
    return `warm:sent:${address}:${provider}:${day}`;
  }

  private scheduleDays(): number {
    return Math.max(0, ...Object.values(this.deps.schedule).map((table) => table.length));
  }

  private isComplete(row: IpWarmup, now: Date): boolean {
    return warmupDay(row.startedOn, now) > this.scheduleDays();
  }
}
