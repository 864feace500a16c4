import type { Knex } from 'knex';
import { readTimestamp } from '../../../db/dialect.js';
import { paginateNewestFirst, type PageQuery } from '../../shared/pagination/list-query.js';
import type { Subscription, Topic, Visibility } from './topic.types.js';

type Row = {
  id: string;
  team_id: string;
  name: string;
  description: string | null;
  default_subscription: string;
  visibility: string;
  created_at: unknown;
};

const toTopic = (row: Row): Topic => ({
  id: row.id,
  teamId: row.team_id,
  name: row.name,
  description: row.description,
  defaultSubscription: row.default_subscription as Subscription,
  visibility: row.visibility as Visibility,
  createdAt: readTimestamp(row.created_at),
});

/** Live topics only: a deleted topic answers 404 but its row stays for what names it. */
export class TopicRepository {
  constructor(private readonly knex: Knex) {}

  private live(teamId: string) {
    return this.knex('topics').where({ team_id: teamId }).whereNull('deleted_at');
  }

  async insert(t: Topic): Promise<void> {
    await this.knex('topics').insert({
      id: t.id,
      team_id: t.teamId,
      name: t.name,
      live_name: t.name.toLowerCase(),
      description: t.description,
      default_subscription: t.defaultSubscription,
      visibility: t.visibility,
      created_at: t.createdAt,
    });
  }

  async findById(teamId: string, id: string): Promise<Topic | undefined> {
    const row = (await this.live(teamId).where({ id }).first()) as Row | undefined;
    return row ? toTopic(row) : undefined;
  }

  async findByIds(teamId: string, ids: string[]): Promise<Topic[]> {
    if (ids.length === 0) return [];
    return ((await this.live(teamId).whereIn('id', ids)) as Row[]).map(toTopic);
  }

  async nameTaken(teamId: string, name: string, exceptId?: string): Promise<boolean> {
    const query = this.live(teamId).where({ live_name: name.toLowerCase() });
    if (exceptId) query.whereNot({ id: exceptId });
    return Boolean(await query.first('id'));
  }

  async update(id: string, changes: Partial<Pick<Topic, 'name' | 'description' | 'visibility'>>): Promise<void> {
    const row: Record<string, unknown> = {};
    if (changes.name !== undefined) Object.assign(row, { name: changes.name, live_name: changes.name.toLowerCase() });
    if (changes.description !== undefined) row.description = changes.description;
    if (changes.visibility !== undefined) row.visibility = changes.visibility;
    if (Object.keys(row).length > 0) await this.knex('topics').where({ id }).update(row);
  }

  async softDelete(id: string, at: Date): Promise<void> {
    await this.knex('topics').where({ id }).update({ deleted_at: at, live_name: null });
  }

  async list(teamId: string, page: PageQuery) {
    const { rows, hasMore } = await paginateNewestFirst<Row>(this.live(teamId), page);
    return { topics: rows.map(toTopic), hasMore };
  }

  /** Every topic's default, deleted ones too: filters naming a deleted topic still compile. */
  async defaultsOf(teamId: string): Promise<Array<{ id: string; defaultSubscription: Subscription }>> {
    const rows = (await this.knex('topics').where({ team_id: teamId }).select('id', 'default_subscription')) as Array<{
      id: string;
      default_subscription: string;
    }>;
    return rows.map((row) => ({ id: row.id, defaultSubscription: row.default_subscription as Subscription }));
  }

  /** Every live topic of the team, newest first. */
  async all(teamId: string): Promise<Topic[]> {
    return ((await this.live(teamId).orderBy('id', 'desc')) as Row[]).map(toTopic);
  }
}
