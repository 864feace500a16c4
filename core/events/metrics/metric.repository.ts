import type { Knex } from 'knex';
import { readJson, readNullableTimestamp, readTimestamp, upsertAdding } from '../../../db/dialect.js';
import { handedOverRecipients, type EmailFacts, type RollupEvent } from './event-counts.js';
import { COUNT_METRICS, zeroCounts, type Counts } from './metric.types.js';

const STATE = 'events';
/** Rows per IN (...) list and per multi-row INSERT: well under SQLite's bound-variable limit. */
const CHUNK = 500;

export type RollupState = { lastEventId: string; completedUntil: Date | null };

export type BucketRow = {
  teamId: string;
  minute: number;
  domainId: string;
  emailId: string;
  broadcastId: string;
  counts: Partial<Counts>;
};

export type BucketFilter = {
  teamId: string;
  start: Date;
  end: Date;
  domainIds: string[];
  emailIds: string[];
  broadcastIds: string[];
};
export type GroupColumn = 'minute' | 'domain_id' | 'email_id' | 'broadcast_id';
export type AggregateRow = {
  minute?: Date;
  domain_id?: string;
  email_id?: string;
  broadcast_id?: string;
  counts: Counts;
};

function chunks<T>(items: T[], size = CHUNK): T[][] {
  const result: T[][] = [];
  for (let i = 0; i < items.length; i += size) result.push(items.slice(i, i + size));
  return result;
}

/** The metric tables, and the reads the roll-up makes of events, emails and domains. */
export class MetricRepository {
  constructor(private readonly knex: Knex) {}

  /** The one state row exists before any roll-up transaction locks it. */
  async ensureState(now: Date): Promise<void> {
    await this.knex('metric_rollup_state')
      .insert({ name: STATE, last_event_id: '', completed_until: null, updated_at: now })
      .onConflict('name')
      .ignore();
  }

  /**
   * Locks the state row for the rest of the transaction (a write is the one lock both SQLite
   * and MySQL take the same way), then reads it: a concurrent roll-up waits here and reads the
   * cursor this one leaves.
   */
  async lockState(trx: Knex, now: Date): Promise<RollupState> {
    await trx('metric_rollup_state').where({ name: STATE }).update({ updated_at: now });
    return (await this.readState(trx))!;
  }

  async readState(knex: Knex = this.knex): Promise<RollupState | undefined> {
    const row = (await knex('metric_rollup_state').where({ name: STATE }).first()) as
      { last_event_id: string; completed_until: unknown } | undefined;
    return row
      ? { lastEventId: row.last_event_id, completedUntil: readNullableTimestamp(row.completed_until) }
      : undefined;
  }

  async saveState(trx: Knex, state: RollupState, now: Date): Promise<void> {
    await trx('metric_rollup_state')
      .where({ name: STATE })
      .update({ last_event_id: state.lastEventId, completed_until: state.completedUntil, updated_at: now });
  }

  /** Events after the cursor and before `beforeId`, oldest first. */
  async eventsAfter(trx: Knex, afterId: string, beforeId: string, limit: number): Promise<RollupEvent[]> {
    const rows = (await trx('events')
      .select('id', 'team_id', 'type', 'data', 'created_at')
      .where('id', '>', afterId)
      .where('id', '<', beforeId)
      .orderBy('id')
      .limit(limit)) as Array<{
      id: string;
      team_id: string;
      type: string;
      data: string;
      created_at: unknown;
    }>;
    return rows.map((row) => ({
      id: row.id,
      teamId: row.team_id,
      type: row.type,
      createdAt: readTimestamp(row.created_at),
      data: parseData(row.type, row.data),
    }));
  }

  async emailFacts(trx: Knex, ids: string[]): Promise<Map<string, EmailFacts>> {
    const facts = new Map<string, EmailFacts>();
    for (const part of chunks(ids)) {
      const rows = (await trx('emails')
        .select(
          'id',
          'domain_id',
          'broadcast_id',
          'to_addresses',
          'cc_addresses',
          'bcc_addresses',
          'suppressed_recipients',
        )
        .whereIn('id', part)) as Array<Record<string, unknown>>;
      for (const row of rows) {
        const addresses = ['to_addresses', 'cc_addresses', 'bcc_addresses'].flatMap(
          (column) => readJson<string[] | null>(row[column], null) ?? [],
        );
        const recipients = handedOverRecipients(addresses, readJson<string[]>(row.suppressed_recipients, []));
        // Transactional mail is outside any broadcast ('').
        facts.set(row.id as string, {
          domainId: (row.domain_id as string) ?? '',
          broadcastId: (row.broadcast_id as string | null) ?? '',
          recipients,
        });
      }
    }
    return facts;
  }

  async seenKeys(trx: Knex, keys: string[]): Promise<Set<string>> {
    const seen = new Set<string>();
    for (const part of chunks(keys))
      for (const row of (await trx('metric_first_seen').select('id').whereIn('id', part)) as Array<{ id: string }>)
        seen.add(row.id);
    return seen;
  }

  async insertSeen(trx: Knex, rows: Array<{ id: string; team_id: string; created_at: Date }>): Promise<void> {
    for (const part of chunks(rows)) await trx('metric_first_seen').insert(part).onConflict('id').ignore();
  }

  async addToBuckets(trx: Knex, rows: Array<Record<string, unknown>>): Promise<void> {
    for (const part of chunks(rows, 200))
      await upsertAdding(
        trx,
        'metric_buckets',
        part,
        ['team_id', 'minute', 'domain_id', 'email_id', 'broadcast_id'],
        COUNT_METRICS,
      );
  }

  /** Sums of every counter over the filter, one row per distinct value of `groups`. */
  async aggregate(filter: BucketFilter, groups: GroupColumn[]): Promise<AggregateRow[]> {
    const query = this.knex('metric_buckets')
      .where('team_id', filter.teamId)
      .where('minute', '>=', filter.start)
      .where('minute', '<', filter.end);
    if (filter.domainIds.length > 0) query.whereIn('domain_id', filter.domainIds);
    if (filter.emailIds.length > 0) query.whereIn('email_id', filter.emailIds);
    if (filter.broadcastIds.length > 0) query.whereIn('broadcast_id', filter.broadcastIds);
    query.select(...groups, ...COUNT_METRICS.map((metric) => this.knex.raw('SUM(??) AS ??', [metric, metric])));
    if (groups.length > 0) query.groupBy(groups);
    const rows = (await query) as Array<Record<string, unknown>>;
    return rows.map((row) => {
      const counts = zeroCounts();
      for (const metric of COUNT_METRICS) counts[metric] = Number(row[metric] ?? 0);
      const result: AggregateRow = { counts };
      if (groups.includes('minute')) result.minute = readTimestamp(row.minute);
      for (const column of ['domain_id', 'email_id', 'broadcast_id'] as const)
        if (groups.includes(column)) result[column] = row[column] as string;
      return result;
    });
  }

  async domainNames(teamId: string, ids: string[]): Promise<Map<string, string>> {
    const names = new Map<string, string>();
    for (const part of chunks(ids)) {
      for (const row of (await this.knex('domains')
        .select('id', 'name')
        .where('team_id', teamId)
        .whereIn('id', part)) as Array<{ id: string; name: string }>)
        names.set(row.id, row.name);
    }
    return names;
  }

  /** Broadcast names (the broadcast dimension's broadcast_name; null for an unnamed one). */
  async broadcastNames(teamId: string, ids: string[]): Promise<Map<string, string | null>> {
    const names = new Map<string, string | null>();
    for (const part of chunks(ids)) {
      for (const row of (await this.knex('broadcasts')
        .select('id', 'name')
        .where('team_id', teamId)
        .whereIn('id', part)) as Array<{ id: string; name: string | null }>)
        names.set(row.id, row.name);
    }
    return names;
  }
}

/** A malformed event body counts as nothing rather than stopping the roll-up for good. */
function parseData(type: string, data: string): Record<string, unknown> {
  if (!type.startsWith('email.')) return {};
  try {
    const parsed = readJson<unknown>(data, {});
    return parsed !== null && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
