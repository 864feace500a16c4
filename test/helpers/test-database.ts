import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import knexFactory from 'knex';
import { connect, ensureMysqlDatabase, type Database } from '../../db/connection.js';

/**
 * The database a test file runs on: SQLite by default, MariaDB/MySQL when
 * MAILROOM_TEST_DATABASE_URL names a server (mysql://root@127.0.0.1:3306). Each test file gets
 * its own fresh database, dropped afterwards, so files can run in parallel.
 */
export const TEST_DB_KIND: 'sqlite' | 'mysql' = process.env.MAILROOM_TEST_DATABASE_URL?.startsWith('mysql')
  ? 'mysql'
  : 'sqlite';

/** Real Redis for tests of the Redis path (both CI passes have one on 127.0.0.1:6379). */
export const TEST_REDIS_URL = process.env.MAILROOM_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** Whether the app under test uses Redis (the MariaDB+Redis pass) or the in-process store. */
export const APP_USES_REDIS = Boolean(process.env.MAILROOM_TEST_REDIS_URL);

export type TestDatabase = { url: string; dataDir: string; drop(): Promise<void> };

export function createTestDatabase(): TestDatabase {
  const dataDir = mkdtempSync(join(tmpdir(), 'mailroom-test-'));
  if (TEST_DB_KIND === 'sqlite') {
    return {
      url: `sqlite://${join(dataDir, 'mailroom.sqlite')}`,
      dataDir,
      drop: async () => rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  const server = new URL(process.env.MAILROOM_TEST_DATABASE_URL!);
  const name = `mailroom_t_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  server.pathname = `/${name}`;
  return {
    url: server.toString(),
    dataDir,
    drop: async () => {
      server.pathname = '/';
      const admin = knexFactory({ client: 'mysql2', connection: server.toString(), pool: { min: 0, max: 1 } });
      try {
        await admin.raw(`DROP DATABASE IF EXISTS \`${name}\``);
      } finally {
        await admin.destroy();
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A fresh, empty test database with an open connection; `close` disconnects and drops it. */
export async function connectTestDatabase(): Promise<{ db: Database; dataDir: string; close(): Promise<void> }> {
  const database = createTestDatabase();
  if (TEST_DB_KIND === 'mysql') await ensureMysqlDatabase(database.url);
  const db = connect(database.url);
  return {
    db,
    dataDir: database.dataDir,
    async close() {
      await db.knex.destroy();
      await database.drop();
    },
  };
}
