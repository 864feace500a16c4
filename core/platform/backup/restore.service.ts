import { randomBytes } from 'node:crypto';
import { readFile, rename, stat, unlink } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { databaseTarget, installSqliteDatabase } from '../../../db/backup.js';
import type { Config } from '../../../lib/config/config.schema.js';
import { fsyncPath } from '../../../lib/fs/durable-files.js';
import { ConfigError } from '../../../lib/errors.js';
import { copyHashed, CopyProgress, listDirectory, type ProgressListener } from './backup-files.js';
import { BackupIntegrityError, DATABASE_FILE, MYSQL_RESTORE_NOTE, readManifest } from './backup-manifest.js';

export type RestoreResult = {
  from: string;
  data_dir: string;
  created_at: string;
  database: { kind: 'sqlite' | 'mysql'; restored_to: string | null; note?: string };
  files: number;
  bytes: number;
};

type Staged = { path: string; temp: string; final: string };

/**
 * `mailroom restore --from DIR` into the configured data dir and database. Run it with the
 * appliance stopped. Nothing is put in place until every file of the backup has been copied
 * next to its destination and matched its size and SHA-256 in the manifest: a damaged backup
 * fails without touching the target. Then each file is renamed into place (the database last,
 * its old WAL removed first) and the directories fsynced.
 */
export async function restoreBackup(
  config: Config,
  from: string,
  options: { force?: boolean; progress?: ProgressListener; warn?: (message: string) => void } = {},
): Promise<RestoreResult> {
  const source = resolve(from);
  const dataDir = resolve(config.dataDir);
  const manifest = await readManifest(source);
  const target = databaseTarget(config.database.url);
  if (manifest.database.kind === 'sqlite' && target.kind === 'mysql')
    throw new ConfigError(
      `restore: the backup holds a SQLite database but database.url is MySQL/MariaDB; restore it with a sqlite:// database.url`,
    );
  const databaseFile = manifest.database.kind === 'sqlite' ? target.file : null;

  const destinationOf = (path: string): string =>
    path === DATABASE_FILE ? databaseFile! : join(dataDir, path.slice('data/'.length));

  if (!options.force) await refuseOccupiedTarget(dataDir, databaseFile, source);

  const files = manifest.files;
  const progress = new CopyProgress(
    files.length,
    files.reduce((sum, file) => sum + file.size, 0),
    options.progress,
  );
  const staged: Staged[] = [];
  try {
    for (const file of files) {
      const final = destinationOf(file.path);
      const temp = `${final}.restore-${randomBytes(6).toString('hex')}.tmp`;
      // Listed before the copy, so a copy that fails half-way is removed too.
      staged.push({ path: file.path, temp, final });
      const copied = await copyHashed(join(source, file.path), temp, {
        mode: file.path === 'data/master.key' ? 0o600 : 0o640,
        onBytes: (bytes) => progress.bytes(bytes),
      });
      progress.fileDone();
      if (!copied)
        throw new BackupIntegrityError(
          `restore FAILED: ${join(source, file.path)} is listed in the manifest but missing: ` +
            `the backup is incomplete; nothing was restored`,
        );
      if (copied.size !== file.size || copied.sha256 !== file.sha256)
        throw new BackupIntegrityError(
          `restore FAILED: checksum mismatch for ${join(source, file.path)} (manifest: ${file.size} bytes, ` +
            `sha256 ${file.sha256}; backup: ${copied.size} bytes, sha256 ${copied.sha256}): ` +
            `the backup is damaged or was changed; nothing was restored`,
        );
    }
    progress.finish();
  } catch (err) {
    await Promise.all(staged.map((file) => unlink(file.temp).catch(() => undefined)));
    throw err;
  }

  // Every file matched: put them in place, the database last.
  const dirs = new Set<string>();
  for (const file of staged.filter((entry) => entry.path !== DATABASE_FILE)) {
    await rename(file.temp, file.final);
    dirs.add(dirname(file.final));
  }
  for (const dir of dirs) await fsyncPath(dir);
  const database = staged.find((entry) => entry.path === DATABASE_FILE);
  if (database) await installSqliteDatabase(database.temp, database.final);
  if (manifest.database.kind === 'mysql') options.warn?.(MYSQL_RESTORE_NOTE);

  return {
    from: source,
    data_dir: dataDir,
    created_at: manifest.created_at,
    database: {
      kind: manifest.database.kind,
      restored_to: database ? database.final : null,
      ...(manifest.database.kind === 'mysql' ? { note: MYSQL_RESTORE_NOTE } : {}),
    },
    files: staged.length,
    bytes: files.reduce((sum, file) => sum + file.size, 0),
  };
}

/** A target that already holds a database, a spool or another master key needs --force. */
async function refuseOccupiedTarget(dataDir: string, databaseFile: string | null, source: string): Promise<void> {
  const found: string[] = [];
  if (databaseFile) {
    const info = await stat(databaseFile).catch(() => undefined);
    if (info && info.size > 0) found.push(`a database (${databaseFile})`);
  }
  const segments = (await listDirectory(join(dataDir, 'spool'))).filter((entry) => entry.name.endsWith('.spool'));
  if (segments.length > 0) found.push(`a spool (${segments.length} segment(s) in ${join(dataDir, 'spool')})`);
  const key = await readFile(join(dataDir, 'master.key'), 'utf8').catch(() => null);
  const backupKey = await readFile(join(source, 'data/master.key'), 'utf8').catch(() => null);
  if (key !== null && backupKey !== null && key.trim() !== backupKey.trim())
    found.push(`a different master key (${join(dataDir, 'master.key')})`);
  if (found.length > 0)
    throw new ConfigError(
      `restore: the target already holds ${found.join(', ')}; restore into a fresh data dir and database, ` +
        `or pass --force to overwrite them (stop the appliance first)`,
    );
}
