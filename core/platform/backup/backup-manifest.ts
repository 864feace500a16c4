import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { ConfigError } from '../../../lib/errors.js';

/**
 * A backup directory:
 *   manifest.json                 written last: its presence marks a complete backup
 *   database/mailroom.sqlite      the SQLite snapshot (absent on MySQL/MariaDB)
 *   data/spool/seg-*.spool        spool segments (accepted emails' MIME, bodies, attachments)
 *   data/<namespace>/<name>       blobs (received/, brand-assets/, ...)
 *   data/master.key               the development master key, when the data dir holds one
 */
export const MANIFEST_FILE = 'manifest.json';
export const MANIFEST_VERSION = 1;
export const DATABASE_FILE = 'database/mailroom.sqlite';

export const MYSQL_DATABASE_NOTE =
  'The database is NOT in this backup: on MySQL/MariaDB back it up with your MySQL tools (mariadb-dump ' +
  '--single-transaction, or mariabackup), taken BEFORE `mailroom backup` so this spool and blob copy holds ' +
  'everything the dump refers to.';
export const MYSQL_RESTORE_NOTE =
  'This backup holds no database (it was taken on MySQL/MariaDB): only the spool, blobs and key files were ' +
  'restored. Restore the database with your MySQL tools (mariadb / mariabackup) from the dump taken with it.';

/** Manifest paths a restore accepts: nothing outside the data dir or the database file. */
const DATA_PATH = /^data\/(master\.key|spool\/seg-[A-Za-z0-9-]+\.spool|[a-z0-9-]+\/[A-Za-z0-9_-][A-Za-z0-9._-]*)$/;

const entrySchema = z.object({
  path: z.string().refine((path) => path === DATABASE_FILE || DATA_PATH.test(path), 'not a path a backup holds'),
  size: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});

const manifestSchema = z.object({
  format: z.literal('mailroom-backup'),
  version: z.literal(MANIFEST_VERSION),
  created_at: z.string(),
  mailroom_version: z.string(),
  database: z.object({
    kind: z.enum(['sqlite', 'mysql']),
    file: z.string().nullable(),
    note: z.string().optional(),
  }),
  references: z.record(z.string(), z.number()),
  files: z.array(entrySchema),
});

export type ManifestEntry = z.infer<typeof entrySchema>;
export type BackupManifest = z.infer<typeof manifestSchema>;

/** A backup that does not hold what its manifest or its database says: damaged or changed. */
export class BackupIntegrityError extends Error {
  override readonly name = 'BackupIntegrityError';
}

/**
 * The manifest of a backup directory. Not a backup, or one of a newer format, is a usage error
 * (ConfigError, exit 2); a manifest that does not parse is a damaged backup (exit 1).
 */
export async function readManifest(dir: string): Promise<BackupManifest> {
  let text: string;
  try {
    text = await readFile(join(dir, MANIFEST_FILE), 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR')
      throw new ConfigError(
        `restore: ${dir} is not a mailroom backup (no ${MANIFEST_FILE}; an interrupted backup has none)`,
      );
    throw err;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new BackupIntegrityError(`restore: ${join(dir, MANIFEST_FILE)} is not valid JSON`);
  }
  const version = (parsed as { format?: unknown; version?: unknown } | null)?.version;
  if (
    (parsed as { format?: unknown } | null)?.format === 'mailroom-backup' &&
    typeof version === 'number' &&
    version > MANIFEST_VERSION
  )
    throw new ConfigError(
      `restore: ${dir} is a backup of format version ${version}, newer than this mailroom reads (${MANIFEST_VERSION}); ` +
        `restore it with the mailroom version that made it`,
    );
  const result = manifestSchema.safeParse(parsed);
  if (!result.success)
    throw new BackupIntegrityError(
      `restore: ${join(dir, MANIFEST_FILE)} is not a manifest this version reads: ${result.error.issues
        .map((issue) => `${issue.path.join('.')}: ${issue.message}`)
        .join('; ')}`,
    );
  const manifest = result.data;
  if (manifest.database.kind === 'sqlite' && !manifest.files.some((file) => file.path === DATABASE_FILE))
    throw new BackupIntegrityError(`restore: the manifest names a SQLite backup but lists no ${DATABASE_FILE}`);
  return manifest;
}
