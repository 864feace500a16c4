import type { Knex } from 'knex';
import { bulkInsertObjects, type OnConflict } from '../../../db/bulk-insert.js';
import { rowsPerInsert } from '../../../db/dialect.js';
import { valueById } from '../../../db/row-locks.js';
import { ConsentRecordRepository } from '../consent/consent-record.repository.js';
import type { ConsentRecord } from '../consent/consent-record.types.js';
import { CONTACT_COLUMNS, contactRow, toContact, type ContactRow } from '../contacts/contact.repository.js';
import type { Contact } from '../contacts/contact.types.js';
import { PROPERTY_VALUE_COLUMNS, propertyValueRow } from '../contacts/property-value-row.js';
import { normalizeEmail } from '../../shared/addresses/email-address.js';
import type { ImportPlan } from './contact-import.types.js';
import type { BatchWrites } from './import-batch.js';

/**
 * A batch's writes to the audience tables, inside the batch's transaction: one look-up of the
 * batch's addresses, then one multi-row statement per table (as many as the dialect's limits
 * need), never a statement per row.
 */
export class ImportWritesRepository {
  constructor(private readonly trx: Knex.Transaction) {}

  /** The team's contacts among `addresses` (normalized), by normalized address. */
  async existing(teamId: string, addresses: string[]): Promise<Map<string, Contact>> {
    if (addresses.length === 0) return new Map();
    const rows = (await this.trx('contacts')
      .select(CONTACT_COLUMNS)
      .where({ team_id: teamId })
      .whereIn('email_normalized', addresses)) as ContactRow[];
    return new Map(rows.map((row) => [normalizeEmail(row.email), toContact(row)]));
  }

  async write(
    teamId: string,
    plan: ImportPlan,
    writes: BatchWrites,
    consent: ConsentRecord[],
    now: Date,
  ): Promise<void> {
    await this.insert('contacts', writes.inserts.map(contactRow));
    await this.update(writes.updates, now);
    // New contacts' rows are plain inserts; existing contacts' replace what they had (upsert).
    const fresh = new Set(writes.inserts.map((c) => c.id));
    const valueRow = (v: BatchWrites['values'][number]) => propertyValueRow({ ...v, teamId });
    await this.insert('contact_property_values', writes.values.filter((v) => fresh.has(v.contactId)).map(valueRow));
    await this.insert('contact_property_values', writes.values.filter((v) => !fresh.has(v.contactId)).map(valueRow), {
      keys: ['contact_id', 'property_id'],
      merge: PROPERTY_VALUE_COLUMNS,
    });
    const topicRows = (contacts: Contact[]) =>
      contacts.flatMap((c) =>
        plan.topics.map((t) => ({
          contact_id: c.id,
          topic_id: t.id,
          team_id: teamId,
          subscription: t.subscription,
          updated_at: now,
        })),
      );
    await this.insert('contact_topics', topicRows(writes.inserts));
    await this.insert('contact_topics', topicRows(writes.touched.filter((c) => !fresh.has(c.id))), {
      keys: ['contact_id', 'topic_id'],
      merge: ['subscription', 'updated_at'],
    });
    await this.insert(
      'segment_members',
      writes.touched.flatMap((c) =>
        plan.segmentIds.map((segmentId) => ({
          segment_id: segmentId,
          contact_id: c.id,
          team_id: teamId,
          created_at: now,
        })),
      ),
      { keys: ['segment_id', 'contact_id'], ignore: true },
    );
    const size = rowsPerInsert(this.trx, 11);
    for (let i = 0; i < consent.length; i += size)
      await new ConsentRecordRepository(this.trx).insertMany(consent.slice(i, i + size));
  }

  /** Existing contacts' new names and opt-outs: one UPDATE with a value per row (CASE id ...). */
  private async update(contacts: Contact[], now: Date): Promise<void> {
    const size = 500;
    for (let i = 0; i < contacts.length; i += size) {
      const part = contacts.slice(i, i + size);
      const column = (name: string, value: (c: Contact) => unknown) =>
        valueById(
          this.trx,
          name,
          part.map((c) => [c.id, value(c)]),
        );
      await this.trx('contacts')
        .whereIn(
          'id',
          part.map((c) => c.id),
        )
        .update({
          first_name: column('first_name', (c) => c.firstName),
          last_name: column('last_name', (c) => c.lastName),
          unsubscribed: column('unsubscribed', (c) => c.unsubscribed),
          updated_at: now,
        });
    }
  }

  private insert(table: string, rows: Array<Record<string, unknown>>, onConflict?: OnConflict): Promise<void> {
    return bulkInsertObjects(this.trx, table, rows, onConflict);
  }
}
