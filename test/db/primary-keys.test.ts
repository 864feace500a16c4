import type { Knex } from 'knex';
import t from 'tap';
import { migrateLatest } from '../../db/migrate.js';
import { connectTestDatabase, TEST_DB_KIND } from '../helpers/test-database.js';

/**
 * Every table has a primary key: Galera replicates rows by key (a table without one is refused
 * under pxc-strict rules or replicated by full scans) and certifies multi-primary writes on it
 * (issue 39). Checked on the schema the migrations build.
 */
async function tablesWithoutPrimaryKey(knex: Knex): Promise<string[]> {
  if (TEST_DB_KIND === 'sqlite') {
    const tables = (await knex.raw(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
    )) as Array<{ name: string }>;
    const without: string[] = [];
    for (const { name } of tables) {
      const columns = (await knex.raw(`PRAGMA table_info(${JSON.stringify(name)})`)) as Array<{ pk: number }>;
      if (!columns.some((column) => column.pk > 0)) without.push(name);
    }
    return without.sort();
  }
  const [rows] = (await knex.raw(
    `SELECT t.table_name AS name FROM information_schema.tables t
     WHERE t.table_schema = DATABASE() AND t.table_type = 'BASE TABLE'
       AND NOT EXISTS (SELECT 1 FROM information_schema.table_constraints c
                       WHERE c.table_schema = t.table_schema AND c.table_name = t.table_name
                         AND c.constraint_type = 'PRIMARY KEY')`,
  )) as [Array<{ name: string }>];
  return rows.map((row) => row.name).sort();
}

t.test(`every table has a primary key on ${TEST_DB_KIND}`, async (t) => {
  const { db, close } = await connectTestDatabase();
  t.teardown(close);
  await migrateLatest(db.knex);
  t.same(await tablesWithoutPrimaryKey(db.knex), [], 'no table of the schema lacks one');
  // The check itself sees a table without one.
  await db.knex.schema.createTable('zz_no_primary_key', (table) => table.string('value', 10));
  t.same(await tablesWithoutPrimaryKey(db.knex), ['zz_no_primary_key'], 'a table without one is found');
  await db.knex.schema.dropTable('zz_no_primary_key');
});
