import type { Knex } from 'knex';
import { valueById } from '../row-locks.js';
import type { Migration } from './migration.js';

const INDEX = 'events_email_id';
/** Rows read and rewritten per statement by the backfill: a short transaction each, on a live appliance. */
const BATCH = 500;

/**
 * `email_id`: the sent email an email.* event is about (null for other events, and for
 * email.received, whose id is a received email's). Until now it lived only inside `data`, so
 * `GET /emails/{id}/events` (the email's timeline) and `GET /emails/{id}/webhook-deliveries`
 * (through the event ids) could not find an email's events without reading the team's whole
 * log. The index (email_id, id) serves both: one range, oldest first.
 *
 * Events recorded before this column are backfilled here from their `data`, in batches walked by
 * id, parsed in JavaScript (the two dialects spell JSON extraction differently); events are kept
 * for the plan's retention window only, so the backfill is bounded by it.
 */
export const addEventsEmailId: Migration = {
  name: '20261127-0089-add-events-email-id',
  async up(knex) {
    if (!(await knex.schema.hasColumn('events', 'email_id'))) {
      await knex.schema.alterTable('events', (table) => {
        table.string('email_id', 36).nullable();
      });
    }
    try {
      await knex.schema.alterTable('events', (table) => table.index(['email_id', 'id'], INDEX));
    } catch (err) {
      // Replayed after an interruption: the index is already there.
      if (!/exists|duplicate/i.test(String((err as Error).message))) throw err;
    }
    await backfill(knex);
  },
  async down(knex) {
    if (!(await knex.schema.hasColumn('events', 'email_id'))) return;
    await knex.schema.alterTable('events', (table) => table.dropIndex(['email_id', 'id'], INDEX));
    await knex.schema.alterTable('events', (table) => {
      table.dropColumn('email_id');
    });
  },
};

/** The email an event is about, as EventLog writes it (see emailIdOfEvent). */
function emailIdIn(type: string, data: string): string | null {
  if (!type.startsWith('email.') || type === 'email.received') return null;
  try {
    const parsed = JSON.parse(data) as { email_id?: unknown; test?: unknown };
    // A webhook test event (POST /webhooks/{id}/test) names a made-up email: filed under none.
    if (parsed.test === true) return null;
    const id = parsed.email_id;
    return typeof id === 'string' && id.length <= 36 ? id : null;
  } catch {
    return null;
  }
}

async function backfill(knex: Knex): Promise<void> {
  let after = '';
  for (;;) {
    const rows = (await knex('events')
      .select('id', 'type', 'data')
      .where('id', '>', after)
      .whereNull('email_id')
      .where('type', 'like', 'email.%')
      .orderBy('id')
      .limit(BATCH)) as Array<{ id: string; type: string; data: string }>;
    if (rows.length === 0) return;
    after = rows[rows.length - 1]!.id;
    const values = rows
      .map((row) => [row.id, emailIdIn(row.type, row.data)] as [string, string | null])
      .filter((entry): entry is [string, string] => entry[1] !== null);
    if (values.length > 0)
      await knex.transaction(async (trx) => {
        await trx('events')
          .whereIn(
            'id',
            values.map(([id]) => id),
          )
          .update({ email_id: valueById(trx, 'email_id', values) });
      });
  }
}
