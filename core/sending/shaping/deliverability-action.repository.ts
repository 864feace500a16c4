import type { Knex } from 'knex';
import { readTimestamp } from '../../../db/dialect.js';
import type { DeliverabilityAction, ReactionKind } from './shaping.types.js';

type Row = Record<string, unknown>;

const toAction = (row: Row): DeliverabilityAction => ({
  id: String(row.id),
  kind: row.kind as ReactionKind,
  provider: String(row.provider),
  egressIp: (row.egress_ip as string | null) ?? null,
  teamId: (row.team_id as string | null) ?? null,
  factor: row.factor === null || row.factor === undefined ? null : Number(row.factor),
  ruleId: (row.rule_id as string | null) ?? null,
  reason: String(row.reason),
  startedAt: readTimestamp(row.started_at),
  endsAt: readTimestamp(row.ends_at),
});

/** The `deliverability_actions` table: what shaping did, and until when. */
export class DeliverabilityActionRepository {
  constructor(private readonly knex: Knex) {}

  async insert(action: DeliverabilityAction): Promise<void> {
    await this.knex('deliverability_actions').insert({
      id: action.id,
      kind: action.kind,
      provider: action.provider,
      egress_ip: action.egressIp,
      team_id: action.teamId,
      factor: action.factor,
      rule_id: action.ruleId,
      reason: action.reason.slice(0, 1000),
      started_at: action.startedAt,
      ends_at: action.endsAt,
    });
  }

  /** Actions still in force at `now` (a short list: the index on ends_at reads only those). */
  async inForce(now: Date): Promise<DeliverabilityAction[]> {
    const rows = (await this.knex('deliverability_actions').where('ends_at', '>', now).orderBy('started_at')) as Row[];
    return rows.map(toAction);
  }

  /** Newest first, before the cursor's start time (the id breaks ties). */
  async page(options: {
    limit: number;
    before?: { startedAt: Date; id: string };
    kind?: ReactionKind;
    provider?: string;
    egressIp?: string;
    activeAt?: Date;
  }): Promise<DeliverabilityAction[]> {
    const query = this.knex('deliverability_actions')
      .orderBy([
        { column: 'started_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(options.limit);
    if (options.kind) query.where({ kind: options.kind });
    if (options.provider) query.where({ provider: options.provider });
    if (options.egressIp) query.where({ egress_ip: options.egressIp });
    if (options.activeAt) query.where('ends_at', '>', options.activeAt);
    const before = options.before;
    if (before)
      query.where((q) =>
        q
          .where('started_at', '<', before.startedAt)
          .orWhere((same) => same.where('started_at', before.startedAt).andWhere('id', '<', before.id)),
      );
    return ((await query) as Row[]).map(toAction);
  }

  async findById(id: string): Promise<DeliverabilityAction | undefined> {
    const row = (await this.knex('deliverability_actions').where({ id }).first()) as Row | undefined;
    return row ? toAction(row) : undefined;
  }

  /** Ends an action now (the operator lifts it). */
  async end(id: string, now: Date): Promise<boolean> {
    return (
      (await this.knex('deliverability_actions').where({ id }).where('ends_at', '>', now).update({ ends_at: now })) ===
      1
    );
  }

  /** Retention: actions that ended before `cutoff`. */
  async purgeEndedBefore(cutoff: Date, limit = 1000): Promise<number> {
    const ids = (await this.knex('deliverability_actions')
      .select('id')
      .where('ends_at', '<', cutoff)
      .limit(limit)) as Array<{
      id: string;
    }>;
    if (ids.length === 0) return 0;
    return this.knex('deliverability_actions')
      .whereIn(
        'id',
        ids.map((row) => row.id),
      )
      .delete();
  }
}
