import type { Knex } from 'knex';
import { hasOneWriter, lockRowsById } from '../../../db/row-locks.js';

/**
 * Moves the given emails from `queued` to `sent` inside the caller's transaction and returns
 * the ids this transaction moved, so a chunk of emails is handed over in one commit and each
 * email still exactly once across mta processes.
 *
 * With row locks (MySQL/MariaDB) the rows are locked through the primary key, skipping any
 * another transaction holds (never waiting: the settle transactions update `last_event` too),
 * then the still-queued ones are updated in one statement. With one writer (SQLite) a
 * conditional UPDATE per email is exact and costs no round trip.
 */
export async function takeQueuedEmails(trx: Knex.Transaction, ids: string[], now: Date): Promise<string[]> {
  if (ids.length === 0) return [];
  if (!hasOneWriter(trx)) {
    const rows = await lockRowsById<{ id: string; last_event: string }>(trx, 'emails', ids, ['id', 'last_event'], {
      skipLocked: true,
    });
    const taken = rows.filter((row) => row.last_event === 'queued').map((row) => row.id);
    if (taken.length > 0) await trx('emails').whereIn('id', taken).update({ last_event: 'sent', updated_at: now });
    return taken;
  }
  const taken: string[] = [];
  for (const id of ids) {
    if ((await trx('emails').where({ id, last_event: 'queued' }).update({ last_event: 'sent', updated_at: now })) === 1)
      taken.push(id);
  }
  return taken;
}
