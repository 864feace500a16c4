import type { Knex } from 'knex';
import { dialectOfKnex } from './dialect.js';
import { retryConflicts } from './retry.js';

export type ClaimSpec = {
  table: string;
  /** Narrows the claimable rows (state, lane, due time); applied to a query on `table`. */
  where: (query: Knex.QueryBuilder) => Knex.QueryBuilder;
  orderBy: string;
  limit: number;
  /** Column set to `token` on the claimed rows, so the claimer can read back exactly its rows. */
  tokenColumn: string;
  token: string;
  /** Other columns set on claim (state, lease expiry). */
  set: Record<string, unknown>;
};

/**
 * Claims up to `limit` rows for one worker so that concurrent workers, in this process or on
 * other nodes, never claim the same row. MySQL/MariaDB: SELECT ... FOR UPDATE SKIP LOCKED in a
 * transaction, then UPDATE by id; workers skip each other's rows instead of waiting.
 * SQLite has no row locks: one UPDATE ... WHERE id IN (SELECT ... LIMIT n) is atomic there
 * (the database has one writer at a time). Returns the ids claimed.
 */
export async function claimRows(knex: Knex, spec: ClaimSpec): Promise<string[]> {
  const changes = { ...spec.set, [spec.tokenColumn]: spec.token };
  if (dialectOfKnex(knex) === 'mysql') {
    // Row locks are one server's: on a Galera cluster two nodes writing through two members can
    // both lock and claim the same row, and the second to commit is refused at certification
    // with a deadlock error. Claiming again then skips the rows the first one took.
    return retryConflicts(() =>
      knex.transaction(
        async (trx) => {
          const rows = (await spec
            .where(trx(spec.table).select('id'))
            .orderBy(spec.orderBy)
            .limit(spec.limit)
            .forUpdate()
            .skipLocked()) as Array<{ id: string }>;
          const ids = rows.map((row) => row.id);
          if (ids.length > 0) await trx(spec.table).whereIn('id', ids).update(changes);
          return ids;
        },
        // READ COMMITTED: the range scan takes no gap locks. Every queue here is inserted into
        // while workers claim (the outbox by API requests, deliveries by hand-overs), and
        // REPEATABLE READ's next-key locks can deadlock those inserts.
        { isolationLevel: 'read committed' },
      ),
    );
  }
  const candidates = spec.where(knex(spec.table).select('id')).orderBy(spec.orderBy).limit(spec.limit);
  const claimed = await knex(spec.table).whereIn('id', candidates).update(changes);
  if (claimed === 0) return [];
  const rows = (await knex(spec.table)
    .select('id')
    .where({ [spec.tokenColumn]: spec.token })) as Array<{ id: string }>;
  return rows.map((row) => row.id);
}
