import type { Knex } from 'knex';
import { AppError } from '../../../lib/errors.js';
import { CONTACT_COLUMNS, toContact, type ContactRow } from '../../audience/contacts/contact.repository.js';
import { publicContact } from '../../audience/contacts/contact.shape.js';
import type { Contact } from '../../audience/contacts/contact.types.js';
import { propertyValueRow } from '../../audience/contacts/property-value-row.js';
import { propertyWrites } from '../../audience/contacts/property-values.js';
import type { ContactProperty, PropertyValue } from '../../audience/properties/contact-property.types.js';
import { rowsPerInsert } from '../../../db/dialect.js';

/** Ids per IN (...) list: well under SQLite's bound-parameter limit. */
const IN_CHUNK = 500;

/** The fields a contact_update step may set that the batch writes itself (not `unsubscribed`). */
export type BatchContactChange = {
  first_name?: string | null;
  last_name?: string | null;
  properties?: Record<string, string | number | null>;
};

/** What a batched contact_update did: the refusal of the whole group, or the events to record. */
export type BatchContactResult =
  | { kind: 'refused'; error: string }
  | { kind: 'done'; events: Array<{ teamId: string; type: 'contact.updated'; data: Record<string, unknown> }> };

/** The team's contacts among `ids`, keyed by id (a contact deleted meanwhile is absent). */
export async function contactsById(trx: Knex, teamId: string, ids: string[]): Promise<Map<string, Contact>> {
  const found = new Map<string, Contact>();
  const unique = [...new Set(ids)];
  for (let i = 0; i < unique.length; i += IN_CHUNK) {
    const rows = (await trx('contacts')
      .where('team_id', teamId)
      .whereIn('id', unique.slice(i, i + IN_CHUNK))
      .select(...CONTACT_COLUMNS)) as ContactRow[];
    for (const row of rows) found.set(row.id, toContact(row));
  }
  return found;
}

/** Property values of many contacts, keyed by contact id then property key (ContactRepository.valuesOf's shape). */
async function valuesOfMany(trx: Knex, contactIds: string[]): Promise<Map<string, Record<string, PropertyValue>>> {
  const byContact = new Map<string, Record<string, PropertyValue>>(contactIds.map((id) => [id, {}]));
  for (let i = 0; i < contactIds.length; i += IN_CHUNK) {
    const rows = (await trx('contact_property_values as v')
      .join('contact_properties as p', 'p.id', 'v.property_id')
      .whereIn('v.contact_id', contactIds.slice(i, i + IN_CHUNK))
      .orderBy('p.key')
      .select('v.contact_id', 'p.key', 'p.type', 'v.string_value', 'v.number_value')) as Array<{
      contact_id: string;
      key: string;
      type: string;
      string_value: string | null;
      number_value: number | null;
    }>;
    for (const row of rows)
      byContact.get(row.contact_id)![row.key] = row.type === 'number' ? Number(row.number_value) : row.string_value!;
  }
  return byContact;
}

/** `values` with the writes applied (null removes), keys in the order valuesOf reads them. */
function applied(
  values: Record<string, PropertyValue>,
  changes: Array<{ key: string; value: PropertyValue | null }>,
): Record<string, PropertyValue> {
  const next: Record<string, PropertyValue> = { ...values };
  for (const { key, value } of changes)
    if (value === null) delete next[key];
    else next[key] = value;
  return Object.fromEntries(Object.entries(next).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * One contact_update step for many contacts of one team (the runs of a batch at the same step:
 * the same change), as ContactService.updateWithin does it for one, in a handful of multi-row
 * statements: the names in one UPDATE, the values in one DELETE and multi-row INSERTs (rows built
 * by propertyValueRow, the one place a value becomes a row), and a contact.updated event for
 * each contact that changed, returned for the batch's one recordMany. A change that names an
 * undeclared property (or a value of the wrong type) refuses the whole group before anything is
 * written, with updateWithin's message.
 */
export async function updateContactsAlike(
  trx: Knex,
  contacts: Contact[],
  change: BatchContactChange,
  declared: Map<string, ContactProperty>,
  now: Date,
): Promise<BatchContactResult> {
  let writes;
  try {
    writes = propertyWrites(change.properties ?? {}, declared);
  } catch (err) {
    if (err instanceof AppError) return { kind: 'refused', error: err.message };
    throw err;
  }
  const keyOf = new Map([...declared.values()].map((p) => [p.id, p.key]));
  const updated = contacts.map((before) => ({
    before,
    after: {
      ...before,
      firstName: change.first_name !== undefined ? change.first_name : before.firstName,
      lastName: change.last_name !== undefined ? change.last_name : before.lastName,
      updatedAt: now,
    } as Contact,
  }));
  // updateWithin's rule: any property write counts as a change; otherwise a name must differ.
  const changed = updated.filter(
    ({ before, after }) =>
      writes.length > 0 || after.firstName !== before.firstName || after.lastName !== before.lastName,
  );
  if (changed.length === 0) return { kind: 'done', events: [] };
  const ids = changed.map((c) => c.after.id);
  const valuesBefore = await valuesOfMany(trx, ids);
  const teamId = changed[0]!.after.teamId;
  for (let i = 0; i < ids.length; i += IN_CHUNK)
    await trx('contacts')
      .whereIn('id', ids.slice(i, i + IN_CHUNK))
      .update({
        ...(change.first_name !== undefined ? { first_name: change.first_name } : {}),
        ...(change.last_name !== undefined ? { last_name: change.last_name } : {}),
        updated_at: now,
      });
  if (writes.length > 0) {
    for (let i = 0; i < ids.length; i += IN_CHUNK)
      await trx('contact_property_values')
        .whereIn('contact_id', ids.slice(i, i + IN_CHUNK))
        .whereIn(
          'property_id',
          writes.map((w) => w.propertyId),
        )
        .delete();
    const rows = ids.flatMap((contactId) =>
      writes
        .filter((w) => w.value !== null)
        .map((w) => propertyValueRow({ contactId, propertyId: w.propertyId, teamId, type: w.type, value: w.value! })),
    );
    const size = rowsPerInsert(trx, Object.keys(rows[0] ?? { a: 1 }).length);
    for (let i = 0; i < rows.length; i += size) await trx('contact_property_values').insert(rows.slice(i, i + size));
  }
  const valueChanges = writes.map((w) => ({ key: keyOf.get(w.propertyId)!, value: w.value }));
  const events: Array<{ teamId: string; type: 'contact.updated'; data: Record<string, unknown> }> = [];
  for (const { before, after } of changed) {
    // Both sides in the same key order (SQL collations sort mixed case differently).
    const oldValues = applied(valuesBefore.get(after.id) ?? {}, []);
    const newValues = applied(oldValues, valueChanges);
    const namesMoved = after.firstName !== before.firstName || after.lastName !== before.lastName;
    if (namesMoved || JSON.stringify(oldValues) !== JSON.stringify(newValues))
      events.push({ teamId, type: 'contact.updated', data: publicContact({ ...after, properties: newValues }) });
  }
  return { kind: 'done', events };
}
