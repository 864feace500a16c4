import { mkdir, stat } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import {
  backupSqliteDatabase,
  databaseTarget,
  liveDatabaseReferences,
  sqliteFileReferences,
  SQLITE_SIDE_FILES,
  type StoredReferences,
} from '../../../db/backup.js';
import type { Config } from '../../../lib/config/config.schema.js';
import { fsyncPath, writeAndRename } from '../../../lib/fs/durable-files.js';
import { ConfigError } from '../../../lib/errors.js';
import { VERSION } from '../../../lib/version.js';
import { copyHashed, CopyProgress, hashFile, listDirectory, type ProgressListener } from './backup-files.js';
import {
  BackupIntegrityError,
  DATABASE_FILE,
  MANIFEST_FILE,
  MANIFEST_VERSION,
  MYSQL_DATABASE_NOTE,
  type BackupManifest,
  type ManifestEntry,
} from './backup-manifest.js';

const SEGMENT_NAME = /^seg-[A-Za-z0-9-]+\.spool$/;
const NAMESPACE = /^[a-z0-9-]+$/;
const BLOB_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;
/**
 * Directories of the data dir that are not data: the spool is listed on its own, the inbound run
 * dir is generated at every start, `health/` holds the readiness probe.
 */
const NOT_BLOB_NAMESPACES = new Set(['spool', 'inbound', 'health']);

export type BackupResult = {
  to: string;
  created_at: string;
  database: { kind: 'sqlite' | 'mysql'; file: string | null; note?: string };
  files: number;
  bytes: number;
  spool_segments: number;
  blobs: number;
  references: StoredReferences['counts'] & { spool_segments: number };
};

type SourceFile = { source: string; path: string; size: number; isSegment: boolean; mode: number };

/**
 * `mailroom backup --to DIR`: a consistent copy of a running (or stopped) appliance.
 *
 * Consistency: the database is copied FIRST (SQLite's online backup: one consistent snapshot),
 * the spool segments and blobs after it. Rows refer to spool records (segment, offset, length)
 * and to blobs; spool segments only grow (records are appended, never rewritten), blobs are only
 * added (written and fsynced before the row that names them), and retention deletes a segment or
 * blob only once no row refers to it. So files copied after the snapshot hold every byte the
 * snapshot refers to, and whatever was added since is harmless extra. The one race left is
 * retention deleting rows and then their files between the snapshot and the copy: the check
 * after the copy (every row's segment present and long enough, every referenced blob present)
 * turns that, or any other gap, into a loud failure instead of a backup that restores holes.
 *
 * On MySQL/MariaDB the database is not copied (the operator's tools do that, right before this
 * runs); the references are read from the live database before the files are copied, so the copy
 * holds every file the live rows refer to, which covers the dump's rows as well unless retention
 * deleted some of them (and their files) between the dump and this run.
 */
export async function createBackup(
  config: Config,
  to: string,
  options: { progress?: ProgressListener; warn?: (message: string) => void } = {},
): Promise<BackupResult> {
  const dataDir = resolve(config.dataDir);
  const target = resolve(to);
  if (target === dataDir || target.startsWith(dataDir + sep))
    throw new ConfigError(`backup: --to ${target} is inside the data dir ${dataDir}; choose a directory outside it`);
  const existing = await stat(target).catch(() => undefined);
  if (existing && !existing.isDirectory()) throw new ConfigError(`backup: --to ${target} is not a directory`);
  if ((await listDirectory(target)).length > 0)
    throw new ConfigError(`backup: ${target} is not empty; back up into a new or empty directory`);
  const database = databaseTarget(config.database.url);
  if (database.file && !(await stat(database.file).catch(() => undefined))?.isFile())
    throw new ConfigError(`backup: no SQLite database at ${database.file} (database.url ${config.database.url})`);
  // A new backup directory is private: it holds the database and the master key.
  if (!existing) await mkdir(target, { recursive: true, mode: 0o700 });
  const createdAt = new Date().toISOString();
  const entries: ManifestEntry[] = [];

  // 1. The database snapshot, and what it refers to.
  let references: StoredReferences;
  if (database.file) {
    options.progress?.({ phase: 'database', message: `copying the SQLite database ${database.file}` });
    const copy = join(target, DATABASE_FILE);
    await mkdir(dirname(copy), { recursive: true });
    await backupSqliteDatabase(database.file, copy);
    references = await sqliteFileReferences(copy);
    // The snapshot is closed: hash the file as it stays in the backup.
    const hashed = await hashFile(copy);
    entries.push({ path: DATABASE_FILE, ...hashed });
    options.progress?.({ phase: 'database', message: `database copied (${hashed.size} bytes)` });
  } else {
    options.warn?.(MYSQL_DATABASE_NOTE);
    references = await liveDatabaseReferences(config.database.url);
  }

  // 2. The spool and the blobs, after the snapshot.
  const sources = await dataFiles(config, dataDir, database.file);
  const progress = new CopyProgress(
    sources.length,
    sources.reduce((sum, file) => sum + file.size, 0),
    options.progress,
  );
  for (const file of sources) {
    const copied = await copyHashed(file.source, join(target, file.path), {
      mode: file.mode,
      // A segment is copied up to its size when listed: later appends are newer than the snapshot.
      size: file.isSegment ? file.size : undefined,
      onBytes: (bytes) => progress.bytes(bytes),
    });
    progress.fileDone();
    if (copied) entries.push({ path: file.path, ...copied });
  }
  progress.finish();

  // 3. The check: the copy holds everything the database refers to.
  verifyReferences(references, entries);

  // 4. The manifest, last and atomically: a directory without it is not a backup.
  for (const dir of new Set(entries.map((entry) => dirname(join(target, entry.path))))) await fsyncPath(dir);
  const manifest: BackupManifest = {
    format: 'mailroom-backup',
    version: MANIFEST_VERSION,
    created_at: createdAt,
    mailroom_version: VERSION,
    database: database.file
      ? { kind: 'sqlite', file: DATABASE_FILE }
      : { kind: 'mysql', file: null, note: MYSQL_DATABASE_NOTE },
    references: { ...references.counts, spool_segments: references.spoolEnds.size },
    files: entries,
  };
  const manifestPath = join(target, MANIFEST_FILE);
  await writeAndRename(`${manifestPath}.tmp`, manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  await fsyncPath(target);

  const dataEntries = entries.filter((entry) => entry.path !== DATABASE_FILE);
  return {
    to: target,
    created_at: createdAt,
    database: manifest.database,
    files: entries.length,
    bytes: entries.reduce((sum, entry) => sum + entry.size, 0),
    spool_segments: dataEntries.filter((entry) => entry.path.startsWith('data/spool/')).length,
    blobs: dataEntries.filter((entry) => !entry.path.startsWith('data/spool/') && entry.path !== 'data/master.key')
      .length,
    references: { ...references.counts, spool_segments: references.spoolEnds.size },
  };
}

/** Every spool record and blob the database refers to is in the copy, whole. */
function verifyReferences(references: StoredReferences, entries: ManifestEntry[]): void {
  const copied = new Map(entries.map((entry) => [entry.path, entry.size]));
  const problems: string[] = [];
  for (const [segment, end] of references.spoolEnds) {
    const size = copied.get(`data/spool/${segment}`);
    if (size === undefined) problems.push(`spool segment ${segment} is missing (rows refer to it up to byte ${end})`);
    else if (size < end)
      problems.push(`spool segment ${segment} has ${size} bytes, rows refer to it up to byte ${end}`);
  }
  for (const blob of references.blobs)
    if (!copied.has(`data/${blob}`)) problems.push(`blob ${blob} is missing (a row refers to it)`);
  if (problems.length > 0)
    throw new BackupIntegrityError(
      `backup FAILED: the copy does not hold everything the database refers to (${problems.length} problem(s); ` +
        `retention may have run during the backup: take it again):\n  ${problems.slice(0, 20).join('\n  ')}`,
    );
}

/** What the data dir holds besides the database: master.key, spool segments, blobs. */
async function dataFiles(config: Config, dataDir: string, databaseFile: string | null): Promise<SourceFile[]> {
  const skipped = new Set<string>();
  if (databaseFile) for (const suffix of ['', ...SQLITE_SIDE_FILES]) skipped.add(`${databaseFile}${suffix}`);
  const runDir = resolve(config.inbound.runDir ?? join(dataDir, 'inbound'));
  const files: SourceFile[] = [];
  const add = async (source: string, path: string, isSegment: boolean, mode = 0o640) => {
    if (skipped.has(source)) return;
    const info = await stat(source).catch(() => undefined);
    if (info?.isFile()) files.push({ source, path, size: info.size, isSegment, mode });
  };
  await add(join(dataDir, 'master.key'), 'data/master.key', false, 0o600);
  for (const entry of await listDirectory(join(dataDir, 'spool')))
    if (entry.isFile && SEGMENT_NAME.test(entry.name))
      await add(join(dataDir, 'spool', entry.name), `data/spool/${entry.name}`, true);
  for (const namespace of await listDirectory(dataDir)) {
    const dir = join(dataDir, namespace.name);
    if (!namespace.isDir || !NAMESPACE.test(namespace.name) || NOT_BLOB_NAMESPACES.has(namespace.name)) continue;
    if (dir === runDir || relative(dir, runDir) === '') continue;
    for (const entry of await listDirectory(dir))
      // `.tmp`: a put in progress (it becomes the blob by rename; the row comes after it).
      if (entry.isFile && BLOB_NAME.test(entry.name) && !entry.name.endsWith('.tmp'))
        await add(join(dir, entry.name), `data/${namespace.name}/${entry.name}`, false);
  }
  return files;
}
