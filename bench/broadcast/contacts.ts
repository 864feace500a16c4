import type { Knex } from 'knex';
import { rowsPerInsert } from '../../db/dialect.js';
import { contactRow } from '../../core/audience/contacts/contact.repository.js';
import type { Contact } from '../../core/audience/contacts/contact.types.js';
import { propertyValueRow, type PropertyValueRow } from '../../core/audience/contacts/property-value-row.js';
import { newId } from '../../lib/ids.js';

/** Contacts per transaction of the bulk insert. */
const CHUNK = 5000;

/** The address of contact `i`: spread over `domains` recipient domains (the MTA limits connections per domain). */
export const contactAddress = (i: number, domains: string[]) => `c${i}@${domains[i % domains.length]}`;

/**
 * `count` subscribed contacts of the team written straight into the tables (the repository's
 * own row mapping, multi-row INSERTs as the CSV import writes them, CHUNK per transaction): the
 * benchmark's set-up, not what it measures. Each has a first name; every other one a value for
 * the string property `cityPropertyId` (the rest get the property's fallback in the message).
 */
export async function insertContacts(
  knex: Knex,
  teamId: string,
  count: number,
  options: { domains: string[]; cityPropertyId: string },
): Promise<void> {
  const now = new Date();
  for (let from = 0; from < count; from += CHUNK) {
    const contacts: Contact[] = [];
    const values: PropertyValueRow[] = [];
    for (let i = from; i < Math.min(count, from + CHUNK); i++) {
      const contact: Contact = {
        id: newId(),
        teamId,
        email: contactAddress(i, options.domains),
        firstName: `Name${i}`,
        lastName: null,
        unsubscribed: false,
        createdAt: now,
        updatedAt: now,
      };
      contacts.push(contact);
      if (i % 2 === 0)
        values.push(
          propertyValueRow({
            contactId: contact.id,
            propertyId: options.cityPropertyId,
            teamId,
            type: 'string',
            value: `City${i}`,
          }),
        );
    }
    await knex.transaction(async (trx) => {
      await insertRows(trx, 'contacts', contacts.map(contactRow));
      await insertRows(trx, 'contact_property_values', values);
    });
  }
}

async function insertRows(trx: Knex.Transaction, table: string, rows: Array<Record<string, unknown>>) {
  if (rows.length === 0) return;
  const size = rowsPerInsert(trx, Object.keys(rows[0]!).length);
  for (let i = 0; i < rows.length; i += size) await trx(table).insert(rows.slice(i, i + size));
}
