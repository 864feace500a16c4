import type { Knex } from 'knex';
import { readTimestamp } from '../../../db/dialect.js';
import { paginateNewestFirst, type PageQuery } from '../../shared/pagination/list-query.js';
import type { SegmentFilter } from './segment-filter.js';
import type { Segment } from './segment.types.js';

type Row = { id: string; team_id: string; name: string; filter: string | null; created_at: unknown };

const toSegment = (row: Row): Segment => ({
  id: row.id,
  teamId: row.team_id,
  name: row.name,
  filter: row.filter === null ? null : (JSON.parse(row.filter) as SegmentFilter),
  createdAt: readTimestamp(row.created_at),
});

/** Live segments only; a deleted one keeps its row for the broadcasts that named it. */
export class SegmentRepository {
  constructor(private readonly knex: Knex) {}

  private live(teamId: string) {
    return this.knex('segments').where({ team_id: teamId }).whereNull('deleted_at');
  }

  async insert(s: Segment): Promise<void> {
    await this.knex('segments').insert({
      id: s.id,
      team_id: s.teamId,
      name: s.name,
      live_name: s.name.toLowerCase(),
      filter: s.filter === null ? null : JSON.stringify(s.filter),
      created_at: s.createdAt,
    });
  }

  async findById(teamId: string, id: string): Promise<Segment | undefined> {
    const row = (await this.live(teamId).where({ id }).first()) as Row | undefined;
    return row ? toSegment(row) : undefined;
  }

  /** Deleted ones too: a broadcast already sending keeps the recipients its segment defines. */
  async findAnyState(teamId: string, id: string): Promise<Segment | undefined> {
    const row = (await this.knex('segments').where({ team_id: teamId, id }).first()) as Row | undefined;
    return row ? toSegment(row) : undefined;
  }

  async nameTaken(teamId: string, name: string, exceptId?: string): Promise<boolean> {
    const query = this.live(teamId).where({ live_name: name.toLowerCase() });
    if (exceptId) query.whereNot({ id: exceptId });
    return Boolean(await query.first('id'));
  }

  async rename(id: string, name: string): Promise<void> {
    await this.knex('segments').where({ id }).update({ name, live_name: name.toLowerCase() });
  }

  async softDelete(id: string, at: Date): Promise<void> {
    await this.knex('segments').where({ id }).update({ deleted_at: at, live_name: null });
  }

  async list(teamId: string, page: PageQuery) {
    const { rows, hasMore } = await paginateNewestFirst<Row>(this.live(teamId), page);
    return { segments: rows.map(toSegment), hasMore };
  }

  /** Every live segment of the team, newest first. */
  async all(teamId: string): Promise<Segment[]> {
    return ((await this.live(teamId).orderBy('id', 'desc')) as Row[]).map(toSegment);
  }
}
