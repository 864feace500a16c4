import type { Knex } from 'knex';

/**
 * One migration = one change. Each is dated, and guarded (hasTable/hasColumn) so a migration
 * interrupted half-way, or replayed on a database restored from a dump, is safe to run again.
 */
export type Migration = {
  name: string;
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
  /**
   * false: run outside a transaction (knex's per-migration `config.transaction`), for a
   * backfill that commits in short batches of its own. Knex then gives every migration of the
   * same run its own transaction instead of one for all.
   */
  transaction?: false;
};

/** Timestamp column with millisecond precision (MySQL DATETIME(3); SQLite stores epoch ms). */
export function timestamp(table: Knex.CreateTableBuilder, name: string): Knex.ColumnBuilder {
  return table.datetime(name, { precision: 3 });
}

/** UUID (v7) primary or foreign key. */
export function uuid(table: Knex.CreateTableBuilder, name: string): Knex.ColumnBuilder {
  return table.string(name, 36);
}

export function createTable(
  name: string,
  build: (table: Knex.CreateTableBuilder) => void,
): Pick<Migration, 'up' | 'down'> {
  return {
    async up(knex) {
      if (await knex.schema.hasTable(name)) return;
      await knex.schema.createTable(name, build);
    },
    async down(knex) {
      await knex.schema.dropTableIfExists(name);
    },
  };
}
