import type { Knex } from 'knex';
import { readTimestamp } from '../../../db/dialect.js';
import { paginateNewestFirst, type PageQuery } from '../../shared/pagination/list-query.js';
import type { ContactProperty, PropertyType, PropertyValue } from './contact-property.types.js';

type Row = {
  id: string;
  team_id: string;
  key: string;
  type: string;
  fallback_value: string | null;
  created_at: unknown;
};

const toProperty = (row: Row): ContactProperty => ({
  id: row.id,
  teamId: row.team_id,
  key: row.key,
  type: row.type as PropertyType,
  fallbackValue: row.fallback_value === null ? null : (JSON.parse(row.fallback_value) as PropertyValue),
  createdAt: readTimestamp(row.created_at),
});

export class ContactPropertyRepository {
  constructor(private readonly knex: Knex) {}

  async insert(p: ContactProperty): Promise<void> {
    await this.knex('contact_properties').insert({
      id: p.id,
      team_id: p.teamId,
      key: p.key,
      key_normalized: p.key.toLowerCase(),
      type: p.type,
      fallback_value: p.fallbackValue === null ? null : JSON.stringify(p.fallbackValue),
      created_at: p.createdAt,
    });
  }

  async findById(teamId: string, id: string): Promise<ContactProperty | undefined> {
    const row = (await this.knex('contact_properties').where({ team_id: teamId, id }).first()) as Row | undefined;
    return row ? toProperty(row) : undefined;
  }

  async findByKey(teamId: string, key: string): Promise<ContactProperty | undefined> {
    const row = (await this.knex('contact_properties')
      .where({ team_id: teamId, key_normalized: key.toLowerCase() })
      .first()) as Row | undefined;
    return row ? toProperty(row) : undefined;
  }

  /** Every property of the team (a team declares tens, not thousands). */
  async all(teamId: string): Promise<ContactProperty[]> {
    return ((await this.knex('contact_properties').where({ team_id: teamId }).orderBy('id')) as Row[]).map(toProperty);
  }

  async setFallback(id: string, fallback: PropertyValue | null): Promise<void> {
    await this.knex('contact_properties')
      .where({ id })
      .update({ fallback_value: fallback === null ? null : JSON.stringify(fallback) });
  }

  async delete(id: string): Promise<void> {
    await this.knex('contact_property_values').where({ property_id: id }).delete();
    await this.knex('contact_properties').where({ id }).delete();
  }

  async list(teamId: string, page: PageQuery) {
    const { rows, hasMore } = await paginateNewestFirst<Row>(
      this.knex('contact_properties').where({ team_id: teamId }),
      page,
    );
    return { properties: rows.map(toProperty), hasMore };
  }
}
