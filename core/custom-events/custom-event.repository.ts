import type { Knex } from 'knex';
import { readJson, readNullableTimestamp, readTimestamp, whereContains, writeJson } from '../../db/dialect.js';
import { paginateNewestFirst, type PageQuery } from '../shared/pagination/list-query.js';
import type { CustomEventDefinition, EventSchema } from './custom-event.types.js';

const TABLE = 'custom_event_definitions';

type Row = {
  id: string;
  team_id: string;
  name: string;
  schema: unknown;
  created_at: unknown;
  updated_at: unknown;
};

const toDefinition = (row: Row): CustomEventDefinition => ({
  id: row.id,
  teamId: row.team_id,
  name: row.name,
  schema: readJson<EventSchema | null>(row.schema, null),
  createdAt: readTimestamp(row.created_at),
  updatedAt: readNullableTimestamp(row.updated_at),
});

/** Live definitions only: a deleted one answers 404 and its name is free again. */
export class CustomEventRepository {
  constructor(private readonly knex: Knex) {}

  private live(teamId: string) {
    return this.knex(TABLE).where({ team_id: teamId }).whereNull('deleted_at');
  }

  async insert(d: CustomEventDefinition): Promise<void> {
    await this.knex(TABLE).insert({
      id: d.id,
      team_id: d.teamId,
      name: d.name,
      live_name: d.name,
      schema: writeJson(d.schema),
      created_at: d.createdAt,
      updated_at: d.updatedAt,
    });
  }

  async findById(teamId: string, id: string): Promise<CustomEventDefinition | undefined> {
    const row = (await this.live(teamId).where({ id }).first()) as Row | undefined;
    return row ? toDefinition(row) : undefined;
  }

  /** `name` must already satisfy the name rules (MySQL's collation would match other cases and trailing spaces). */
  async findByName(teamId: string, name: string): Promise<CustomEventDefinition | undefined> {
    const row = (await this.live(teamId).where({ live_name: name }).first()) as Row | undefined;
    return row ? toDefinition(row) : undefined;
  }

  /** Live definitions of the team named in `names` (one query for many concurrent sends), keyed by name. */
  async findByNames(teamId: string, names: string[]): Promise<Map<string, CustomEventDefinition>> {
    const rows = (await this.live(teamId).whereIn('live_name', names)) as Row[];
    return new Map(rows.map((row) => [row.name, toDefinition(row)]));
  }

  async nameTaken(teamId: string, name: string): Promise<boolean> {
    return Boolean(await this.live(teamId).where({ live_name: name }).first('id'));
  }

  /** Replaces the schema; false when the definition was deleted meanwhile. */
  async updateSchema(id: string, schema: EventSchema | null, at: Date): Promise<boolean> {
    const changed = await this.knex(TABLE)
      .where({ id })
      .whereNull('deleted_at')
      .update({ schema: writeJson(schema), updated_at: at });
    return changed > 0;
  }

  /** False when someone else deleted it first. */
  async softDelete(id: string, at: Date): Promise<boolean> {
    const changed = await this.knex(TABLE)
      .where({ id })
      .whereNull('deleted_at')
      .update({ deleted_at: at, live_name: null });
    return changed > 0;
  }

  async list(teamId: string, page: PageQuery & { search?: string }) {
    const query = this.live(teamId);
    if (page.search) whereContains(query, ['name'], page.search);
    const { rows, hasMore } = await paginateNewestFirst<Row>(query, page);
    return { definitions: rows.map(toDefinition), hasMore };
  }
}
