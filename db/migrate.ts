import type { Knex } from 'knex';
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

/** Applies pending migrations; returns the names applied (empty when up to date). */
export async function migrateLatest(knex: Knex): Promise<string[]> {
  const [, applied] = (await knex.migrate.latest(options)) as [number, string[]];
  return applied;
}

/** Rolls every migration back (tests and `mailroom migrate --down-all`). */
export async function migrateDownAll(knex: Knex): Promise<string[]> {
  const [, reverted] = (await knex.migrate.rollback(options, true)) as [number, string[]];
  return reverted;
}
