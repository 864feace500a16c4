import type { Knex } from 'knex';
import { readJson, readNullableTimestamp, readTimestamp, whereContains, writeJson } from '../../../db/dialect.js';
import { paginateNewestFirst, type PageQuery } from '../../shared/pagination/list-query.js';
import type { Broadcast, BroadcastStatus } from './broadcast.types.js';

type Row = {
  id: string;
  team_id: string;
  name: string | null;
  segment_id: string | null;
  topic_id: string | null;
  from_header: string | null;
  subject: string | null;
  reply_to: string | null;
  preview_text: string | null;
  html: string | null;
  text: string | null;
  status: string;
  scheduled_at: unknown;
  sent_at: unknown;
  cursor: string | null;
  failure_reason: string | null;
  created_at: unknown;
  updated_at: unknown;
};

const toBroadcast = (row: Row): Broadcast => ({
  id: row.id,
  teamId: row.team_id,
  name: row.name,
  segmentId: row.segment_id,
  topicId: row.topic_id,
  from: row.from_header,
  subject: row.subject,
  replyTo: readJson<string[]>(row.reply_to, []),
  previewText: row.preview_text,
  html: row.html,
  text: row.text,
  status: row.status as BroadcastStatus,
  scheduledAt: readNullableTimestamp(row.scheduled_at),
  sentAt: readNullableTimestamp(row.sent_at),
  cursor: row.cursor,
  failureReason: row.failure_reason,
  createdAt: readTimestamp(row.created_at),
  updatedAt: readTimestamp(row.updated_at),
});

const toRow = (b: Broadcast) => ({
  id: b.id,
  team_id: b.teamId,
  name: b.name,
  segment_id: b.segmentId,
  topic_id: b.topicId,
  from_header: b.from,
  subject: b.subject,
  reply_to: b.replyTo.length > 0 ? writeJson(b.replyTo) : null,
  preview_text: b.previewText,
  html: b.html,
  text: b.text,
  status: b.status,
  scheduled_at: b.scheduledAt,
  sent_at: b.sentAt,
  cursor: b.cursor,
  failure_reason: b.failureReason,
  created_at: b.createdAt,
  updated_at: b.updatedAt,
});

export type BroadcastListFilter = PageQuery & { search?: string; status?: BroadcastStatus };

/** Broadcasts not deleted; a deleted draft answers 404 but keeps its row. */
export class BroadcastRepository {
  constructor(private readonly knex: Knex) {}

  private live(teamId: string) {
    return this.knex('broadcasts').where({ team_id: teamId }).whereNull('deleted_at');
  }

  async insert(b: Broadcast): Promise<void> {
    await this.knex('broadcasts').insert(toRow(b));
  }

  async save(b: Broadcast): Promise<void> {
    const { id, team_id, created_at, ...changes } = toRow(b);
    void team_id;
    void created_at;
    await this.knex('broadcasts').where({ id }).update(changes);
  }

  async findById(teamId: string, id: string): Promise<Broadcast | undefined> {
    const row = (await this.live(teamId).where({ id }).first()) as Row | undefined;
    return row ? toBroadcast(row) : undefined;
  }

  /** For the fan-out: by id, whatever the team. */
  async findForFanOut(id: string): Promise<Broadcast | undefined> {
    const row = (await this.knex('broadcasts').where({ id }).whereNull('deleted_at').first()) as Row | undefined;
    return row ? toBroadcast(row) : undefined;
  }

  async softDelete(id: string, at: Date): Promise<void> {
    await this.knex('broadcasts').where({ id }).update({ deleted_at: at, updated_at: at });
  }

  /** Moves a broadcast from one of `from` to `to` only if it is still there; true when it moved. */
  async transition(id: string, from: BroadcastStatus[], changes: Partial<Row> & { status: BroadcastStatus }) {
    return (await this.knex('broadcasts').where({ id }).whereIn('status', from).update(changes)) > 0;
  }

  /** Broadcasts the fan-out should work on now: queued, sending, or scheduled and due. */
  async dueIds(now: Date, limit: number): Promise<string[]> {
    return (await this.knex('broadcasts')
      .whereNull('deleted_at')
      .where((q) =>
        q
          .whereIn('status', ['queued', 'sending'])
          .orWhere((d) => d.where('status', 'scheduled').where('scheduled_at', '<=', now)),
      )
      .orderBy('id')
      .limit(limit)
      .pluck('id')) as string[];
  }

  async list(teamId: string, filter: BroadcastListFilter) {
    const query = this.live(teamId);
    if (filter.status) query.where('status', filter.status);
    if (filter.search) whereContains(query, ['name', 'subject'], filter.search);
    const { rows, hasMore } = await paginateNewestFirst<Row>(query, filter);
    return { broadcasts: rows.map(toBroadcast), hasMore };
  }
}
