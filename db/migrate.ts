import type { Knex } from 'knex';
import { isConflict } from './errors.js';
import { migrations } from './migrations/index.js';
import type { Migration } from './migrations/migration.js';

const source: Knex.MigrationSource<Migration> = {
  getMigrations: async () => migrations,
  getMigrationName: (migration) => migration.name,
  getMigration: async (migration) => ({
    up: migration.up,
    down: migration.down,
    ...(migration.transaction === false ? { config: { transaction: false } } : {}),
  }),
};

const options = { migrationSource: source, tableName: 'knex_migrations' };

/** How long a start waits for another process's migrations before it gives up. */
const LOCK_WAIT_MS = 120_000;

/**
 * Applies pending migrations; returns the names applied (empty when up to date). Nothing pending
 * (every start but the first after an upgrade) takes no lock. Processes starting together (a
 * node's units, several nodes) race for knex's migration lock: the loser waits for the winner
 * and finds nothing left to do. On a Galera cluster the loser's lock is refused at commit (a
 * deadlock error) instead of being found taken; it waits the same way.
 */
export async function migrateLatest(knex: Knex): Promise<string[]> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    const [, pending] = (await knex.migrate.list(options)) as [unknown[], unknown[]];
    if (pending.length === 0) return [];
    try {
      const [, applied] = (await knex.migrate.latest(options)) as [number, string[]];
      return applied;
    } catch (err) {
      const lockedOut = (err as Error).name === 'MigrationLocked' || isConflict(err);
      if (!lockedOut || Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, 250 + Math.random() * 250));
    }
  }
}

/** Rolls every migration back (tests and `mailroom migrate --down-all`). */
export async function migrateDownAll(knex: Knex): Promise<string[]> {
  const [, reverted] = (await knex.migrate.rollback(options, true)) as [number, string[]];
  return reverted;
}
