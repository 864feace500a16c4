import type { Knex } from 'knex';
import { deleteInBatches } from '../../../db/dialect.js';
import type { Clock } from '../../../lib/clock.js';
import { PLANS } from '../../platform/plans/plan.catalog.js';
import type { DeliveryState } from './delivery.types.js';

export type DeliveryRetentionDeps = {
  knex: Knex;
  clock: Clock;
  /** Attempts (with their SMTP transcripts, the bulk of the queue's bytes) are kept this long. */
  transcriptRetentionDays: number;
};

/** Deliveries in these states will not change again; only they are purged by age. */
export const SETTLED_STATES: DeliveryState[] = ['delivered', 'bounced', 'suppressed', 'failed'];

const DAY_MS = 86_400_000;
/** An expired rest is kept a day after its last change, so `mailroom ip list` still shows why it happened. */
const REST_MEMORY_MS = DAY_MS;
/**
 * Strikes below the threshold have no end time of their own. A week without a new one means
 * the destination is not blocklisting the address; forgetting them bounds the table.
 */
const STRIKE_MEMORY_MS = 7 * DAY_MS;

/**
 * Retention of the outbound queue's tables: attempts by the configured transcript window,
 * settled deliveries by the team plan's window (as emails), and egress rests that ran out.
 * Deliveries still waiting or being sent are never purged here (they expire into a bounce).
 */
export class DeliveryRetention {
  constructor(private readonly deps: DeliveryRetentionDeps) {}

  async purgeExpired(batch = 1000): Promise<{ attempts: number; deliveries: number; egressBlocks: number }> {
    const now = this.deps.clock.now();
    const attempts = await this.purgeAttempts(now, batch);
    const deliveries = await this.purgeSettledDeliveries(now, batch);
    const egressBlocks = await this.purgeEgressBlocks(now);
    return { attempts, deliveries, egressBlocks };
  }

  /** Attempts older than the transcript window, whatever state their delivery is in. */
  async purgeAttempts(now: Date, batch = 1000): Promise<number> {
    const knex = this.deps.knex;
    const before = new Date(now.getTime() - this.deps.transcriptRetentionDays * DAY_MS);
    return deleteInBatches(
      knex,
      'delivery_attempts',
      () => knex('delivery_attempts').select('id').where('created_at', '<', before),
      batch,
    );
  }

  /** Settled deliveries past their team plan's window, and those of teams that no longer exist. */
  async purgeSettledDeliveries(now: Date, batch = 1000): Promise<number> {
    const knex = this.deps.knex;
    const settled = () => knex('deliveries').select('deliveries.id').whereIn('deliveries.state', SETTLED_STATES);
    let total = 0;
    for (const plan of PLANS) {
      const before = new Date(now.getTime() - plan.limits.retention_days * DAY_MS);
      total += await this.deleteDeliveries(
        () =>
          settled()
            .join('teams', 'teams.id', 'deliveries.team_id')
            .where('teams.plan_code', plan.code)
            .where('deliveries.created_at', '<', before),
        batch,
      );
    }
    total += await this.deleteDeliveries(
      () => settled().leftJoin('teams', 'teams.id', 'deliveries.team_id').whereNull('teams.id'),
      batch,
    );
    return total;
  }

  /** Deletes selected deliveries with their remaining attempts, so no attempt outlives its delivery. */
  private async deleteDeliveries(select: () => Knex.QueryBuilder, batch: number): Promise<number> {
    const knex = this.deps.knex;
    let total = 0;
    for (;;) {
      const ids = ((await select().limit(batch)) as Array<{ id: string }>).map((row) => row.id);
      if (ids.length === 0) return total;
      await knex('delivery_attempts').whereIn('delivery_id', ids).delete();
      total += await knex('deliveries').whereIn('id', ids).delete();
      if (ids.length < batch) return total;
    }
  }

  /** Rests that ran out (and strikes that stopped coming); an operator's disable never runs out. */
  async purgeEgressBlocks(now: Date): Promise<number> {
    const restCutoff = new Date(now.getTime() - REST_MEMORY_MS);
    const strikeCutoff = new Date(now.getTime() - STRIKE_MEMORY_MS);
    return this.deps
      .knex('egress_blocks')
      .where((q) => q.where('blocked_until', '<=', now).where('updated_at', '<', restCutoff))
      .orWhere((q) => q.whereNull('blocked_until').where('updated_at', '<', strikeCutoff))
      .delete();
  }
}
