/**
 * Contacts seeded straight into the database for bench:dashboard: multi-row INSERTs of the rows
 * an import writes (contacts and their property values), ids UUIDv7 in creation order, so the
 * contacts table and the segment count work on what a million-contact team really has.
 */
import { v7 as uuidv7 } from 'uuid';
import type { createRuntime } from '../app/runtime.js';
import { contactRow } from '../core/audience/contacts/contact.repository.js';
import { rowsPerInsert } from '../db/dialect.js';

type Runtime = Awaited<ReturnType<typeof createRuntime>>;

/** Contacts per seeding transaction. */
const SEED_BATCH = 5000;
export const PLANS = ['free', 'starter', 'pro', 'enterprise'];

/**
 * `count` contacts for a team, each with a `plan` (string, one of PLANS) and `seats` (number,
 * 1 to 500) value; declares the two properties first. Answers the seconds it took.
 */
export async function seedContacts(runtime: Runtime, teamId: string, count: number): Promise<number> {
  const { knex } = runtime.db;
  const plan = await runtime.services.contactProperties.create(teamId, { key: 'plan', type: 'string' });
  const seats = await runtime.services.contactProperties.create(teamId, { key: 'seats', type: 'number' });
  const started = performance.now();
  const end = Date.now() - 60_000;
  for (let from = 0; from < count; from += SEED_BATCH) {
    const contacts: Array<Record<string, unknown>> = [];
    const values: Array<Record<string, unknown>> = [];
    for (let i = from; i < Math.min(count, from + SEED_BATCH); i++) {
      const createdAt = new Date(end - (count - i) * 1000);
      const id = uuidv7({ msecs: createdAt.getTime() });
      contacts.push(
        contactRow({
          id,
          teamId,
          email: `person${i}@example${i % 40}.net`,
          firstName: `Person${i % 997}`,
          lastName: null,
          unsubscribed: i % 50 === 0,
          createdAt,
          updatedAt: createdAt,
        }),
      );
      const value = (propertyId: string, string: string | null, number: number | null) => ({
        contact_id: id,
        property_id: propertyId,
        team_id: teamId,
        string_value: string,
        number_value: number,
      });
      values.push(value(plan.id, PLANS[i % PLANS.length]!, null), value(seats.id, null, 1 + ((i * 7919) % 500)));
    }
    await knex.transaction(async (trx) => {
      for (const [table, rows] of [
        ['contacts', contacts],
        ['contact_property_values', values],
      ] as const) {
        const size = rowsPerInsert(trx, Object.keys(rows[0]!).length);
        for (let i = 0; i < rows.length; i += size) await trx(table).insert(rows.slice(i, i + size));
      }
    });
    if (count >= 100_000 && (from / SEED_BATCH) % 40 === 0)
      process.stdout.write(`\r  seeded ${from.toLocaleString('en')} of ${count.toLocaleString('en')} contacts`);
  }
  if (count >= 100_000) process.stdout.write('\r');
  const seconds = (performance.now() - started) / 1000;
  console.log(`seeded ${count.toLocaleString('en')} contacts in ${seconds.toFixed(1)} s`);
  return seconds;
}
