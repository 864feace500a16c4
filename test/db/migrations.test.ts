import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '../../db/connection.js';
import { migrateDownAll, migrateLatest } from '../../db/migrate.js';
import { migrations } from '../../db/migrations/index.js';
import { connectTestDatabase, TEST_DB_KIND } from '../helpers/test-database.js';

t.test(`migrations run up, again (no-op), down and up on ${TEST_DB_KIND}`, async (t) => {
  const { db, close } = await connectTestDatabase();
  t.teardown(close);
  const applied = await migrateLatest(db.knex);
  t.same(
    applied,
    migrations.map((m) => m.name),
    'every migration applied in order',
  );
  for (const table of [
    'teams',
    'team_members',
    'api_keys',
    'request_logs',
    'idempotency_keys',
    'brand_assets',
    'job_leases',
    'events',
    'domains',
    'suppressions',
    'dkim_keys',
    'templates',
    'template_versions',
    'emails',
    'email_attachments',
  ]) {
    t.ok(await db.knex.schema.hasTable(table), `${table} exists`);
  }
  t.same(await migrateLatest(db.knex), [], 'running again changes nothing');
  // Each migration's up is guarded: replaying one over an existing schema is harmless.
  for (const migration of migrations) await migration.up(db.knex);
  t.pass('every up() is safe to run twice');
  const reverted = await migrateDownAll(db.knex);
  t.equal(reverted.length, migrations.length, 'every migration rolls back');
  t.notOk(await db.knex.schema.hasTable('teams'));
  t.same(
    await migrateLatest(db.knex),
    migrations.map((m) => m.name),
    'and up again',
  );
});

t.test('SQLite connection is durable: WAL and synchronous=FULL', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mailroom-durable-'));
  const db = connect(`sqlite://${dir}/durable.sqlite`);
  t.teardown(async () => {
    await db.knex.destroy();
    rmSync(dir, { recursive: true, force: true });
  });
  const [mode] = await db.knex.raw('PRAGMA journal_mode');
  const [sync] = await db.knex.raw('PRAGMA synchronous');
  t.equal(mode.journal_mode, 'wal');
  t.equal(sync.synchronous, 2, 'FULL');
});
