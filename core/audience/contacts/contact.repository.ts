import type { Knex } from 'knex';
import { propertyValueRow } from './property-value-row.js';
import { readBoolean, readTimestamp, whereStartsWith } from '../../../db/dialect.js';
import { normalizeEmail } from '../../shared/addresses/email-address.js';
import { paginateNewestFirst, type PageQuery } from '../../shared/pagination/list-query.js';
import type { PropertyValue } from '../properties/contact-property.types.js';
import type { Contact } from './contact.types.js';

export type ContactRow = {
  id: string;
  team_id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  unsubscribed: unknown;
  created_at: unknown;
  updated_at: unknown;
};

export const CONTACT_COLUMNS = [
  'id',
  'team_id',
  'email',
  'first_name',
  'last_name',
  'unsubscribed',
  'created_at',
  'updated_at',
] as const;

export const toContact = (row: ContactRow): Contact => ({
  id: row.id,
  teamId: row.team_id,
  email: row.email,
  firstName: row.first_name,
  lastName: row.last_name,
  unsubscribed: readBoolean(row.unsubscribed),
  createdAt: readTimestamp(row.created_at),
  updatedAt: readTimestamp(row.updated_at),
});

/** A value to write: a property's id and type, and the value (null removes it). */
export type ValueWrite = { propertyId: string; type: 'string' | 'number'; value: PropertyValue | null };

/** A contact as its `contacts` row (the import writes many at once with the same mapping). */
export const contactRow = (c: Contact) => ({
  id: c.id,
  team_id: c.teamId,
  email: c.email,
  email_normalized: normalizeEmail(c.email),
  first_name: c.firstName,
  last_name: c.lastName,
  unsubscribed: c.unsubscribed,
  created_at: c.createdAt,
  updated_at: c.updatedAt,
});

export class ContactRepository {
  constructor(private readonly knex: Knex) {}

  async insert(c: Contact): Promise<void> {
    await this.knex('contacts').insert(contactRow(c));
  }

  async findById(teamId: string, id: string): Promise<Contact | undefined> {
    const row = (await this.knex('contacts').where({ team_id: teamId, id }).first()) as ContactRow | undefined;
    return row ? toContact(row) : undefined;
  }

  /** By id alone: for signed links, whose token names the contact but not its team. */
  async findAnyTeam(id: string): Promise<Contact | undefined> {
    const row = (await this.knex('contacts').where({ id }).first()) as ContactRow | undefined;
    return row ? toContact(row) : undefined;
  }

  async findByEmail(teamId: string, email: string): Promise<Contact | undefined> {
    const row = (await this.knex('contacts')
      .where({ team_id: teamId, email_normalized: normalizeEmail(email) })
      .first()) as ContactRow | undefined;
    return row ? toContact(row) : undefined;
  }

  async update(c: Contact): Promise<void> {
    await this.knex('contacts')
      .where({ id: c.id })
      .update({
        email: c.email,
        email_normalized: normalizeEmail(c.email),
        first_name: c.firstName,
        last_name: c.lastName,
        unsubscribed: c.unsubscribed,
        updated_at: c.updatedAt,
      });
  }

  /** Erasure: the row and everything hanging off it (values, topic choices, memberships). */
  /**
   * Erasure: the row and everything that holds its data, the payloads of the custom events sent
   * for it included (they may carry personal data; read through (team_id, contact_id, id)).
   */
  async erase(teamId: string, id: string): Promise<void> {
    for (const table of ['contact_property_values', 'contact_topics', 'segment_members'])
      await this.knex(table).where({ contact_id: id }).delete();
    await this.knex('custom_event_occurrences').where({ team_id: teamId, contact_id: id }).delete();
    await this.knex('contacts').where({ id }).delete();
  }

  async countForTeam(teamId: string): Promise<number> {
    const row = (await this.knex('contacts').where({ team_id: teamId }).count({ n: '*' }).first()) as { n: unknown };
    return Number(row.n);
  }

  /** Newest first; `narrow` adds conditions (segment membership) to the query over `contacts`. */
  async list(teamId: string, page: PageQuery, narrow?: (query: Knex.QueryBuilder) => void) {
    const query = this.knex('contacts').select(CONTACT_COLUMNS).where({ team_id: teamId });
    narrow?.(query);
    const { rows, hasMore } = await paginateNewestFirst<ContactRow>(query, page);
    return { contacts: rows.map(toContact), hasMore };
  }

  /**
   * Contacts whose address starts with `prefix` (lower case), in address order: on the
   * (team_id, email_normalized) unique index a page is one range read, however many addresses
   * match (ordering matches by id instead would sort every match first). The cursor is a
   * contact id, as elsewhere, read back to its address; an unknown one gives an empty page.
   */
  async searchByAddress(teamId: string, prefix: string, page: PageQuery) {
    const limit = page.limit ?? 20;
    const cursor = page.after ?? page.before;
    let from: string | undefined;
    if (cursor) {
      const row = (await this.knex('contacts').where({ team_id: teamId, id: cursor }).first('email_normalized')) as
        { email_normalized: string } | undefined;
      if (!row) return { contacts: [], hasMore: false };
      from = row.email_normalized;
    }
    const query = this.knex('contacts').select(CONTACT_COLUMNS).where({ team_id: teamId });
    // The range lets either database read only the matching stretch of the index; LIKE keeps the
    // match exact (case, and % or _ as ordinary characters).
    query.where('email_normalized', '>=', prefix).where('email_normalized', '<', `${prefix}\uffff`);
    whereStartsWith(query, 'email_normalized', prefix, { lowerCased: true });
    if (page.before) {
      const rows = (await query
        .where('email_normalized', '<', from!)
        .orderBy('email_normalized', 'desc')
        .limit(limit + 1)) as ContactRow[];
      return { contacts: rows.slice(0, limit).reverse().map(toContact), hasMore: rows.length > limit };
    }
    if (from) query.where('email_normalized', '>', from);
    const rows = (await query.orderBy('email_normalized', 'asc').limit(limit + 1)) as ContactRow[];
    return { contacts: rows.slice(0, limit).map(toContact), hasMore: rows.length > limit };
  }

  /** The contact's values keyed by the property's declared key. */
  async valuesOf(contactId: string): Promise<Record<string, PropertyValue>> {
    const rows = (await this.knex('contact_property_values as v')
      .join('contact_properties as p', 'p.id', 'v.property_id')
      .where('v.contact_id', contactId)
      .orderBy('p.key')
      .select('p.key', 'p.type', 'v.string_value', 'v.number_value')) as Array<{
      key: string;
      type: string;
      string_value: string | null;
      number_value: number | null;
    }>;
    return Object.fromEntries(
      rows.map((row) => [row.key, row.type === 'number' ? Number(row.number_value) : row.string_value!]),
    );
  }

  /**
   * Sets and removes values (null removes): a delete and one multi-row insert. A contact created
   * in this transaction (`fresh`) has nothing to delete, and the DELETE is skipped: on MySQL its
   * gap lock at the end of the index (new ids are the largest) deadlocks concurrent creates.
   */
  async writeValues(teamId: string, contactId: string, writes: ValueWrite[], fresh = false): Promise<void> {
    if (writes.length === 0) return;
    if (!fresh)
      await this.knex('contact_property_values')
        .where({ contact_id: contactId })
        .whereIn(
          'property_id',
          writes.map((w) => w.propertyId),
        )
        .delete();
    const rows = writes
      .filter((w) => w.value !== null)
      .map((w) => propertyValueRow({ contactId, propertyId: w.propertyId, teamId, type: w.type, value: w.value! }));
    if (rows.length > 0) await this.knex('contact_property_values').insert(rows);
  }
}
