import { chmod, rename, unlink } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { ConfigError } from '../lib/errors.js';
import { fsyncPath } from '../lib/fs/durable-files.js';
import { parseSpoolRef } from '../lib/spool/spool-ref-text.js';
import { connect, dialectOf, sqlitePathFromUrl, type Dialect } from './connection.js';

/**
 * The database side of `mailroom backup` / `mailroom restore`: SQLite's online backup, the
 * restore of the SQLite file, and what the rows refer to outside the database (spool records,
 * blobs), so a backup can prove it holds everything its database snapshot needs.
 */

/** The few better-sqlite3 calls used here (the package ships no type declarations). */
type SqliteProgress = { totalPages: number; remainingPages: number };
type SqliteDatabase = {
  backup(destination: string, options?: { progress?: (progress: SqliteProgress) => number }): Promise<SqliteProgress>;
  pragma(source: string, options?: { simple?: boolean }): unknown;
  close(): void;
};
type SqliteConstructor = new (
  filename: string,
  options?: { readonly?: boolean; fileMustExist?: boolean; timeout?: number },
) => SqliteDatabase;

const require = createRequire(import.meta.url);

function openSqlite(path: string, readonly: boolean): SqliteDatabase {
  const Sqlite = require('better-sqlite3') as SqliteConstructor;
  return new Sqlite(path, { readonly, fileMustExist: true, timeout: 5000 });
}

/** The configured database: SQLite with its file (absolute), or MySQL/MariaDB (no file here). */
export function databaseTarget(url: string): { kind: Dialect; file: string | null } {
  const kind = dialectOf(url);
  if (kind === 'mysql') return { kind, file: null };
  const path = sqlitePathFromUrl(url);
  if (path === ':memory:')
    throw new ConfigError('backup/restore: database.url is sqlite://:memory:, which has nothing on disk to copy');
  return { kind, file: resolve(path) };
}

/** The references of the configured MySQL/MariaDB database (read before its files are copied). */
export async function liveDatabaseReferences(url: string): Promise<StoredReferences> {
  const db = connect(url, 1);
  try {
    return await storedReferences(db.knex);
  } finally {
    await db.knex.destroy();
  }
}

/** The references of a SQLite file, read-only (the snapshot a backup just took). */
export async function sqliteFileReferences(path: string): Promise<StoredReferences> {
  const knex = openSqliteFileReadOnly(path);
  try {
    return await storedReferences(knex);
  } finally {
    await knex.destroy();
  }
}

/**
 * A consistent copy of a live SQLite database with the online backup API. The whole copy is
 * one backup step (one read transaction): a step-by-step copy restarts whenever the appliance
 * commits in between, and a busy appliance commits all the time. Readers never block the WAL
 * writer, so the appliance keeps accepting mail meanwhile. The copy is switched to a rollback
 * journal (one self-contained file: no -wal or -shm beside it in the backup; the appliance turns
 * WAL back on when it opens the restored file), checked, made private and fsynced.
 */
export async function backupSqliteDatabase(source: string, destination: string): Promise<{ pages: number }> {
  const db = openSqlite(source, false);
  let result: SqliteProgress;
  try {
    db.pragma('busy_timeout = 5000');
    result = await db.backup(destination, { progress: () => 0x7fffffff });
  } finally {
    db.close();
  }
  const copy = openSqlite(destination, false);
  try {
    copy.pragma('journal_mode = DELETE');
    const check = copy.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw new Error(`the database copy ${destination} fails quick_check: ${String(check)}`);
  } finally {
    copy.close();
  }
  await chmod(destination, 0o640);
  await fsyncPath(destination);
  return { pages: result.totalPages };
}

/** A read-only knex on a SQLite file (a backup's database), to read its references. */
export function openSqliteFileReadOnly(path: string): Knex {
  return knexFactory({
    client: 'better-sqlite3',
    connection: { filename: path, options: { readonly: true } },
    useNullAsDefault: true,
    pool: { min: 1, max: 1 },
  });
}

/** What the rows of one database refer to outside it. */
export type StoredReferences = {
  /** Per spool segment, the end (offset + length) of the furthest record any row refers to. */
  spoolEnds: Map<string, number>;
  /** Blobs rows refer to, as `<namespace>/<name>`. */
  blobs: Set<string>;
  counts: { emails: number; attachments: number; received_raw: number; brand_assets: number };
};

/** Spool records (emails, their attachments, raw received mail) and blobs (older raw received mail, brand files) rows refer to. */
export async function storedReferences(knex: Knex): Promise<StoredReferences> {
  const spoolEnds = new Map<string, number>();
  const blobs = new Set<string>();
  const counts = { emails: 0, attachments: 0, received_raw: 0, brand_assets: 0 };
  for (const [table, key] of [
    ['emails', 'emails'],
    ['email_attachments', 'attachments'],
  ] as const) {
    if (!(await knex.schema.hasTable(table))) continue;
    const rows = (await knex(table)
      .select('spool_segment')
      .max({ end: knex.raw('spool_offset + spool_length') })
      .count({ count: '*' })
      .groupBy('spool_segment')) as Array<{ spool_segment: string; end: number | string; count: number | string }>;
    for (const row of rows) {
      const segment = String(row.spool_segment);
      spoolEnds.set(segment, Math.max(spoolEnds.get(segment) ?? 0, Number(row.end)));
      counts[key] += Number(row.count);
    }
  }
  if (await knex.schema.hasTable('received_emails')) {
    const rows = (await knex('received_emails').distinct('raw_blob').whereNotNull('raw_blob')) as Array<{
      raw_blob: string;
    }>;
    for (const row of rows) {
      // A spool record (since issue 37) or a file of the blob store (before).
      const record = parseSpoolRef(row.raw_blob);
      if (record)
        spoolEnds.set(record.segment, Math.max(spoolEnds.get(record.segment) ?? 0, record.offset + record.length));
      else blobs.add(`received/${row.raw_blob}`);
    }
    counts.received_raw = rows.length;
  }
  if (await knex.schema.hasTable('brand_assets')) {
    const rows = (await knex('brand_assets').distinct('sha256', 'extension')) as Array<{
      sha256: string;
      extension: string;
    }>;
    for (const row of rows) blobs.add(`brand-assets/${row.sha256}.${row.extension}`);
    counts.brand_assets = rows.length;
  }
  return { spoolEnds, blobs, counts };
}

/** The SQLite companion files a database file leaves beside itself. */
export const SQLITE_SIDE_FILES = ['-wal', '-shm', '-journal'];

/**
 * Puts a restored database file (already written and fsynced at `staged`, in the target's
 * directory) in place atomically: the old database's WAL and shared-memory files go first (a
 * stale WAL would be replayed onto the restored file), then the rename, then the directory fsync.
 */
export async function installSqliteDatabase(staged: string, target: string): Promise<void> {
  for (const suffix of SQLITE_SIDE_FILES) {
    await unlink(`${target}${suffix}`).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
  }
  await rename(staged, target);
  await fsyncPath(dirname(target));
}
