import type { Knex } from 'knex';
import type { Clock } from '../../../lib/clock.js';
import { newId } from '../../../lib/ids.js';
import { contributionOf, emailIdOf, type EmailFacts, type RollupEvent } from './event-counts.js';
import { floorToMinute } from './metric-dates.js';
import { MetricRepository, type RollupState } from './metric.repository.js';
import { COUNT_METRICS, type CountMetric } from './metric.types.js';

export type RollupDeps = {
  knex: Knex;
  clock: Clock;
  /**
   * How long after an event's id was minted the roll-up waits before counting past it. Event
   * ids are minted inside the transaction that records them, so an id can become visible after
   * a later one; a minute covers such a transaction waiting out MySQL's default 50 s lock wait.
   */
  settleMs?: number;
  batchSize?: number;
};

export type RollupResult = { events: number; buckets: number; batches: number };

/** The lowest UUIDv7 minted at `ms`: every id minted earlier sorts below it. */
export function lowestIdAt(ms: number): string {
  const hex = ms.toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7000-8000-000000000000`;
}

type Bucket = { row: Record<string, unknown> };

/**
 * Rolls events up into one-minute buckets, after a cursor over event ids (UUIDv7, time
 * ordered). Each batch locks the cursor row, adds its counts to the buckets, records what it
 * counted once (first-seen rows) and moves the cursor, all in one transaction: a crash loses the
 * whole batch or nothing, and a second roll-up (another scheduler) waits on the lock and starts
 * where this one ended, so every event is counted exactly once.
 */
export class MetricsRollup {
  readonly repository: MetricRepository;
  private readonly settleMs: number;
  private readonly batchSize: number;

  constructor(private readonly deps: RollupDeps) {
    this.repository = new MetricRepository(deps.knex);
    this.settleMs = deps.settleMs ?? 60_000;
    this.batchSize = deps.batchSize ?? 1000;
  }

  /**
   * Counts every event minted before `until` (default: now less the settle time), down to a
   * minute boundary; that boundary becomes `data_as_of` once every such event is counted.
   */
  async run(options: { until?: Date } = {}): Promise<RollupResult> {
    const now = this.deps.clock.now();
    const horizon = floorToMinute(options.until?.getTime() ?? now.getTime() - this.settleMs);
    await this.repository.ensureState(now);
    const total: RollupResult = { events: 0, buckets: 0, batches: 0 };
    for (;;) {
      const batch = await this.deps.knex.transaction((trx) => this.batch(trx, horizon));
      total.events += batch.events;
      total.buckets += batch.buckets;
      total.batches++;
      if (batch.drained) return total;
    }
  }

  private async batch(
    trx: Knex.Transaction,
    horizon: number,
  ): Promise<{ events: number; buckets: number; drained: boolean }> {
    const now = this.deps.clock.now();
    const state = await this.repository.lockState(trx, now);
    const events = await this.repository.eventsAfter(trx, state.lastEventId, lowestIdAt(horizon), this.batchSize);
    const drained = events.length < this.batchSize;
    const buckets = events.length > 0 ? await this.count(trx, events) : 0;
    const completed = Math.max(state.completedUntil?.getTime() ?? 0, horizon);
    const next: RollupState = {
      lastEventId: events.at(-1)?.id ?? state.lastEventId,
      completedUntil: drained ? new Date(completed) : state.completedUntil,
    };
    await this.repository.saveState(trx, next, now);
    return { events: events.length, buckets, drained };
  }

  /** Adds a batch of events to their buckets; returns how many bucket rows it touched. */
  private async count(trx: Knex.Transaction, events: RollupEvent[]): Promise<number> {
    const emailIds = [...new Set(events.map(emailIdOf).filter((id) => id !== ''))];
    const facts = await this.repository.emailFacts(trx, emailIds);
    const buckets = new Map<string, Bucket>();
    const once = new Map<string, { metric: CountMetric; event: RollupEvent }>();
    for (const event of events) {
      const email = facts.get(emailIdOf(event));
      const contribution = contributionOf(event, email);
      add(buckets, event, email, contribution.counts);
      for (const { key, metric } of contribution.once) if (!once.has(key)) once.set(key, { metric, event });
    }
    const seen = await this.repository.seenKeys(trx, [...once.keys()]);
    const firsts = [...once.entries()].filter(([key]) => !seen.has(key));
    for (const [, { metric, event }] of firsts) add(buckets, event, facts.get(emailIdOf(event)), { [metric]: 1 });
    await this.repository.insertSeen(
      trx,
      firsts.map(([id, { event }]) => ({ id, team_id: event.teamId, created_at: event.createdAt })),
    );
    const rows = [...buckets.values()].map((bucket) => bucket.row);
    await this.repository.addToBuckets(trx, rows);
    return rows.length;
  }
}

/** Adds counts to the bucket of an event's team, minute, domain, email and broadcast. */
function add(
  buckets: Map<string, Bucket>,
  event: RollupEvent,
  email: EmailFacts | undefined,
  counts: Partial<Record<CountMetric, number>>,
): void {
  const domainId = email?.domainId ?? '';
  const entries = Object.entries(counts).filter(([, value]) => value !== undefined && value > 0);
  if (entries.length === 0) return;
  const minute = floorToMinute(event.createdAt.getTime());
  const emailId = emailIdOf(event);
  const key = `${event.teamId}|${minute}|${domainId}|${emailId}`;
  let bucket = buckets.get(key);
  if (!bucket) {
    // Every counter present (0 where nothing happened): a multi-row INSERT needs one column set.
    const zeros = Object.fromEntries(COUNT_METRICS.map((metric) => [metric, 0]));
    bucket = {
      row: {
        id: newId(),
        team_id: event.teamId,
        minute: new Date(minute),
        domain_id: domainId,
        email_id: emailId,
        // Transactional mail is outside any broadcast (''); an email's broadcast never changes.
        broadcast_id: email?.broadcastId ?? '',
        ...zeros,
      },
    };
    buckets.set(key, bucket);
  }
  for (const [metric, value] of entries)
    bucket.row[metric] = ((bucket.row[metric] as number | undefined) ?? 0) + (value as number);
}
