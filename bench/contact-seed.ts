/**
 * Contacts seeded straight into the database for bench:dashboard: multi-row INSERTs of the rows
 * an import writes (contacts and their property values), ids UUIDv7 in creation order, so the
 * contacts table and the segment count work on what a million-contact team really has.
 */
import { v7 as uuidv7 } from 'uuid';
import type { createRuntime } from '../app/runtime.js';
import { contactRow } from '../core/audience/contacts/contact.repository.js';
import { propertyValueRow } from '../core/audience/contacts/property-value-row.js';
import { rowsPerInsert } from '../db/dialect.js';

type Runtime = Awaited<ReturnType<typeof createRuntime>>;

/** Contacts per seeding transaction. */
const SEED_BATCH = 5000;
export const PLANS = ['free', 'starter', 'pro', 'enterprise'];
const COUNTRIES = ['DE', 'FR', 'US', 'BR', 'JP', 'IN'];

export type SeedOptions = {
  /** Also `country` (string), `score` (number) and `vip` (string "true"/"false"): the import bench's five. */
  fiveProperties?: boolean;
  /** Leave folded_value NULL, as rows written before 20261128-0300 (for the backfill benchmark). */
  unfolded?: boolean;
};

/**
 * `count` contacts for a team, each with a `plan` (string, one of PLANS) and `seats` (number,
 * 1 to 500) value (and three more with `fiveProperties`); declares the properties first. Value
 * rows are built by propertyValueRow, as every writer's. Answers the seconds it took.
 */
export async function seedContacts(
  runtime: Runtime,
  teamId: string,
  count: number,
  options: SeedOptions = {},
): Promise<number> {
  const { knex } = runtime.db;
  const declare = (key: string, type: 'string' | 'number') =>
    runtime.services.contactProperties.create(teamId, { key, type });
  const plan = await declare('plan', 'string');
  const seats = await declare('seats', 'number');
  const more = options.fiveProperties
    ? {
        country: await declare('country', 'string'),
        score: await declare('score', 'number'),
        vip: await declare('vip', 'string'),
      }
    : undefined;
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
      const value = (propertyId: string, type: 'string' | 'number', v: string | number) => {
        const row = propertyValueRow({ contactId: id, propertyId, teamId, type, value: v });
        return options.unfolded ? { ...row, folded_value: null } : row;
      };
      values.push(
        value(plan.id, 'string', PLANS[i % PLANS.length]!),
        value(seats.id, 'number', 1 + ((i * 7919) % 500)),
      );
      if (more)
        values.push(
          value(more.country.id, 'string', COUNTRIES[i % COUNTRIES.length]!),
          value(more.score.id, 'number', (i % 1000) / 10),
          value(more.vip.id, 'string', String(i % 3 === 0)),
        );
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
