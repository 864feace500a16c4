import type { Knex } from 'knex';
import { hasOneWriter, lockRowsById, valueById, whereEachEquals } from '../../../db/row-locks.js';
import { DeliveryRepository } from './delivery.repository.js';
import type { Delivery } from './delivery.types.js';

/** One claimed delivery and the columns its outcome sets. */
export type SettleRow = { delivery: Delivery; row: Record<string, unknown> };

const same = (a: unknown, b: unknown) =>
  a instanceof Date && b instanceof Date ? a.getTime() === b.getTime() : a === b;

/**
 * Writes the outcomes of many claimed deliveries in the caller's transaction and returns the
 * ids it settled: only rows still `sending` under the lease that claimed them (a delivery taken
 * back from a slow worker changes nothing), each at most once.
 *
 * With row locks (MySQL/MariaDB): the rows are locked through the primary key, the ones still held are kept,
 * and one UPDATE writes them all (a column whose value differs per row gets a CASE on the id):
 * two statements for the whole group instead of one round trip per delivery; `optimistic`
 * (a group of several outcomes) tries one statement first (see settleAllOrThrow). SQLite: one
 * conditional UPDATE per row (one writer), which is exact and costs no round trip in-process.
 */
export async function settleRows(
  trx: Knex.Transaction,
  entries: SettleRow[],
  options: { optimistic?: boolean } = {},
): Promise<Set<string>> {
  const settled = new Set<string>();
  if (entries.length === 0) return settled;
  if (hasOneWriter(trx)) {
    const repository = new DeliveryRepository(trx);
    for (const { delivery, row } of entries) {
      if (!settled.has(delivery.id) && (await repository.settle(delivery, row))) settled.add(delivery.id);
    }
    return settled;
  }
  if (options.optimistic) return settleAllOrThrow(trx, entries);
  const ids = [...new Set(entries.map((e) => e.delivery.id))];
  const current = await lockRowsById<{ id: string; state: string; lease_owner: string | null }>(
    trx,
    'deliveries',
    ids,
    ['id', 'state', 'lease_owner'],
  );
  const held = new Map(current.filter((row) => row.state === 'sending').map((row) => [row.id, row.lease_owner]));
  const owned: SettleRow[] = [];
  for (const entry of entries) {
    if (settled.has(entry.delivery.id) || held.get(entry.delivery.id) !== entry.delivery.leaseOwner) continue;
    settled.add(entry.delivery.id);
    owned.push(entry);
  }
  if (owned.length > 0)
    await trx('deliveries')
      .whereIn('id', [...settled])
      .update({ ...assignments(trx, owned), lease_owner: null, lease_until: null });
  return settled;
}

/** A group's write met a delivery whose lease was lost: the group is written again outcome by outcome. */
export class LeaseLost extends Error {}

/**
 * The common case in one statement: every row still held (state and lease checked per row in
 * the UPDATE itself), or LeaseLost, which rolls the group back; each outcome is then settled
 * alone through the exact path. Saves the locking read per group, at the price of redoing a
 * group in the rare case a lease ran out under a slow worker.
 */
async function settleAllOrThrow(trx: Knex.Transaction, entries: SettleRow[]): Promise<Set<string>> {
  const unique = [...new Map(entries.map((entry) => [entry.delivery.id, entry])).values()];
  if (unique.length !== entries.length) throw new LeaseLost('a delivery appears twice in one settle group');
  const held = unique.map((entry): [string, unknown] => [entry.delivery.id, entry.delivery.leaseOwner]);
  const updated = await whereEachEquals(
    trx('deliveries')
      .whereIn(
        'id',
        unique.map((entry) => entry.delivery.id),
      )
      .where('state', 'sending'),
    'lease_owner',
    held,
  ).update({ ...assignments(trx, unique), lease_owner: null, lease_until: null });
  if (updated !== unique.length)
    throw new LeaseLost(`${unique.length - updated} of ${unique.length} deliveries are no longer held`);
  return new Set(unique.map((entry) => entry.delivery.id));
}

/** SET values for one UPDATE of many rows: a plain value where all rows agree, else CASE id ... ELSE column END. */
function assignments(trx: Knex.Transaction, entries: SettleRow[]): Record<string, unknown> {
  const columns = new Set(entries.flatMap((entry) => Object.keys(entry.row)));
  const set: Record<string, unknown> = {};
  for (const column of columns) {
    const having = entries.filter((entry) => column in entry.row);
    const first = having[0]!.row[column];
    if (having.length === entries.length && having.every((entry) => same(entry.row[column], first))) {
      set[column] = first;
      continue;
    }
    set[column] = valueById(
      trx,
      column,
      having.map((entry): [string, unknown] => [entry.delivery.id, entry.row[column]]),
    );
  }
  return set;
}
