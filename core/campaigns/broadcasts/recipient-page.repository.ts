import type { Knex } from 'knex';
import { bulkInsertObjects } from '../../../db/bulk-insert.js';
import { toContact, CONTACT_COLUMNS, type ContactRow } from '../../audience/contacts/contact.repository.js';
import type { Contact } from '../../audience/contacts/contact.types.js';
import type { Exclusion } from './broadcast.types.js';

/** One recipient row of a committed page. */
export type RecipientRow = {
  contactId: string;
  email: string;
  emailId: string | null;
  excluded: Exclusion | null;
};

/**
 * The fan-out's reads and writes: segment members in id order after a cursor, their values and
 * topic choices for one page, and the page's recipient rows with the cursor, written in the
 * unit of work that also holds the page's emails.
 */
export class RecipientPageRepository {
  constructor(private readonly knex: Knex) {}

  async members(
    teamId: string,
    narrow: (query: Knex.QueryBuilder) => void,
    after: string | null,
    limit: number,
  ): Promise<Contact[]> {
    const query = this.knex('contacts').select(CONTACT_COLUMNS).where({ team_id: teamId });
    narrow(query);
    if (after) query.where('id', '>', after);
    return ((await query.orderBy('id', 'asc').limit(limit)) as ContactRow[]).map(toContact);
  }

  /** Each contact's values by declared key. */
  async values(contactIds: string[]): Promise<Map<string, Map<string, string>>> {
    const rows = (await this.knex('contact_property_values as v')
      .join('contact_properties as p', 'p.id', 'v.property_id')
      .whereIn('v.contact_id', contactIds)
      .select('v.contact_id', 'p.key', 'p.type', 'v.string_value', 'v.number_value')) as Array<{
      contact_id: string;
      key: string;
      type: string;
      string_value: string | null;
      number_value: number | null;
    }>;
    const byContact = new Map<string, Map<string, string>>();
    for (const row of rows) {
      const value = row.type === 'number' ? String(Number(row.number_value)) : (row.string_value ?? '');
      if (!byContact.has(row.contact_id)) byContact.set(row.contact_id, new Map());
      byContact.get(row.contact_id)!.set(row.key, value);
    }
    return byContact;
  }

  /** The contacts among `contactIds` whose own choice for the topic is `subscription`. */
  async choosing(contactIds: string[], topicId: string, subscription: 'opt_in' | 'opt_out'): Promise<Set<string>> {
    const ids = (await this.knex('contact_topics')
      .whereIn('contact_id', contactIds)
      .where({ topic_id: topicId, subscription })
      .pluck('contact_id')) as string[];
    return new Set(ids);
  }

  /** Writer for the unit of work: the page's recipients and the broadcast's new cursor. */
  static writer(broadcastId: string, teamId: string, at: Date) {
    return async (trx: Knex.Transaction, pages: RecipientRow[][]) => {
      const rows = pages.flat();
      await bulkInsertObjects(
        trx,
        'broadcast_recipients',
        rows.map((r) => ({
          broadcast_id: broadcastId,
          contact_id: r.contactId,
          team_id: teamId,
          email: r.email,
          email_id: r.emailId,
          excluded: r.excluded,
          // Results list a suppressed address among the broadcast's `suppressed` recipients.
          suppressed_at: r.excluded === 'suppressed' ? at : null,
          created_at: at,
        })),
      );
      const last = rows.reduce((max, r) => (r.contactId > max ? r.contactId : max), '');
      if (last) await trx('broadcasts').where({ id: broadcastId }).update({ cursor: last, updated_at: at });
    };
  }
}
