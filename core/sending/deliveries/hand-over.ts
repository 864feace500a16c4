import type { Knex } from 'knex';
import { dialectOfKnex } from '../../../db/dialect.js';

/**
 * Moves the given emails from `queued` to `sent` inside the caller's transaction and returns
 * the ids this transaction moved, so a chunk of emails is handed over in one commit and each
 * email still exactly once across mta processes.
 *
 * MySQL/MariaDB: the rows are locked through the primary key only (FORCE INDEX) with SKIP
 * LOCKED, then the still-queued ones are updated in one statement. Locking through the
 * `last_event` index instead would take next-key locks on it, which the settle transactions'
 * `last_event` updates run into (a deadlock under load); a row another transaction holds is
 * skipped, never waited for. SQLite has one writer at a time: a conditional UPDATE per email is
 * exact there and costs no round trip.
 */
export async function takeQueuedEmails(trx: Knex.Transaction, ids: string[], now: Date): Promise<string[]> {
  if (ids.length === 0) return [];
  if (dialectOfKnex(trx) === 'mysql') {
    const [rows] = (await trx.raw(`SELECT id, last_event FROM emails FORCE INDEX (PRIMARY) WHERE id IN (${ids.map(() => '?').join(', ')}) FOR UPDATE SKIP LOCKED`, ids)) as [
      Array<{ id: string; last_event: string }>,
    ];
    const taken = rows.filter((row) => row.last_event === 'queued').map((row) => row.id);
    if (taken.length > 0) await trx('emails').whereIn('id', taken).update({ last_event: 'sent', updated_at: now });
    return taken;
  }
  const taken: string[] = [];
  for (const id of ids) {
    if ((await trx('emails').where({ id, last_event: 'queued' }).update({ last_event: 'sent', updated_at: now })) === 1) taken.push(id);
  }
  return taken;
}
