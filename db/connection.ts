import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { ConfigError } from '../lib/errors.js';

export type Dialect = 'sqlite' | 'mysql';
export type Database = { knex: Knex; dialect: Dialect; url: string };

/** sqlite://./rel.sqlite -> ./rel.sqlite; sqlite:///abs/x.sqlite -> /abs/x.sqlite; sqlite://:memory: */
export function sqlitePathFromUrl(url: string): string {
  const rest = url.slice('sqlite://'.length);
  if (rest === ':memory:') return rest;
  if (!rest) throw new ConfigError('Invalid configuration:\n  database.url: sqlite:// needs a file path');
  return rest;
}

export function dialectOf(url: string): Dialect {
  if (url.startsWith('sqlite://')) return 'sqlite';
  if (url.startsWith('mysql://') || url.startsWith('mariadb://')) return 'mysql';
  throw new ConfigError(
    `Invalid configuration:\n  database.url: unsupported scheme in "${url.split(':')[0]}:", use sqlite:// or mysql://`,
  );
}

/** Per-connection settings beyond the URL (MySQL only). */
export type ConnectOptions = {
  /** MariaDB Galera: SET SESSION wsrep_sync_wait on every new connection (see database.wsrepSyncWait). */
  wsrepSyncWait?: number | undefined;
};

export function connect(url: string, poolMax = 10, options: ConnectOptions = {}): Database {
  const dialect = dialectOf(url);
  return { knex: dialect === 'sqlite' ? connectSqlite(url) : connectMysql(url, poolMax, options), dialect, url };
}

function connectSqlite(url: string): Knex {
  const path = sqlitePathFromUrl(url);
  if (path !== ':memory:') mkdirSync(dirname(resolve(path)), { recursive: true });
  return knexFactory({
    client: 'better-sqlite3',
    connection: { filename: path },
    useNullAsDefault: true,
    pool: {
      min: 1,
      max: 1,
      // An acknowledged write is on disk: WAL with synchronous=FULL fsyncs every commit.
      afterCreate: (conn: { pragma: (sql: string) => unknown }, done: (err: Error | null, conn: unknown) => void) => {
        try {
          conn.pragma('journal_mode = WAL');
          conn.pragma('synchronous = FULL');
          conn.pragma('foreign_keys = ON');
          conn.pragma('busy_timeout = 5000');
          done(null, conn);
        } catch (err) {
          done(err as Error, conn);
        }
      },
    },
  });
}

/** mysql2 connection options from a mysql:// URL; `database: false` for server-level work. */
function mysqlConnection(url: string, database = true) {
  const parsed = new URL(url.replace(/^mariadb:/, 'mysql:'));
  return {
    host: parsed.hostname,
    port: parsed.port ? Number(parsed.port) : 3306,
    user: decodeURIComponent(parsed.username || 'root'),
    password: decodeURIComponent(parsed.password),
    ...(database ? { database: mysqlDatabaseName(url) } : {}),
    charset: 'utf8mb4',
    // Timestamps go in and come out as UTC regardless of the server's time zone.
    timezone: 'Z',
    supportBigNumbers: true,
  };
}

function mysqlDatabaseName(url: string): string {
  return decodeURIComponent(new URL(url.replace(/^mariadb:/, 'mysql:')).pathname.replace(/^\//, '')) || 'mailroom';
}

type MysqlConnection = { query: (sql: string, callback: (err: Error | null) => void) => void };

function connectMysql(url: string, poolMax: number, options: ConnectOptions): Knex {
  const { wsrepSyncWait } = options;
  return knexFactory({
    client: 'mysql2',
    connection: mysqlConnection(url),
    pool: {
      min: 0,
      max: poolMax,
      ...(wsrepSyncWait === undefined
        ? {}
        : {
            // Every statement of the session, not only those that ask: a read through this
            // member then sees what another node committed through another member just before.
            afterCreate: (conn: MysqlConnection, done: (err: Error | null, conn: unknown) => void) =>
              conn.query(`SET SESSION wsrep_sync_wait = ${Math.trunc(wsrepSyncWait)}`, (err) => done(err, conn)),
          }),
    },
  });
}

/** Creates the MySQL database named in the URL if it does not exist (first start, tests). */
export async function ensureMysqlDatabase(url: string): Promise<void> {
  const name = mysqlDatabaseName(url);
  if (!/^[A-Za-z0-9_]+$/.test(name))
    throw new ConfigError(
      `Invalid configuration:\n  database.url: database name "${name}" must be letters, digits and _`,
    );
  const admin = knexFactory({ client: 'mysql2', connection: mysqlConnection(url, false), pool: { min: 0, max: 1 } });
  try {
    await admin.raw(`CREATE DATABASE IF NOT EXISTS \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
  } finally {
    await admin.destroy();
  }
}
