import type { Command, CommanderError } from 'commander';
import type { BackupProgress } from '../../core/platform/backup/backup-files.js';
import { BackupIntegrityError } from '../../core/platform/backup/backup-manifest.js';
import { createBackup } from '../../core/platform/backup/backup.service.js';
import { restoreBackup } from '../../core/platform/backup/restore.service.js';
import { loadConfig } from '../../lib/config/load-config.js';
import { printJson } from '../output.js';

/** Progress lines on stderr (stdout keeps the JSON result). */
function showProgress(verb: string) {
  return (progress: BackupProgress) => {
    if (progress.phase === 'database') process.stderr.write(`${verb}: ${progress.message}\n`);
    else
      process.stderr.write(
        `${verb}: ${progress.filesDone}/${progress.filesTotal} files, ${progress.bytesDone}/${progress.bytesTotal} bytes\n`,
      );
  };
}

const warn = (message: string) => process.stderr.write(`NOTE: ${message}\n`);

/** A damaged or incomplete backup: a clear message and exit 1 (a usage error stays exit 2). */
async function reportIntegrity(work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (err) {
    if (!(err instanceof BackupIntegrityError)) throw err;
    process.stderr.write(`${err.message}\n`);
    process.exitCode = 1;
  }
}

/**
 * A usage error commander reports (a missing --to/--from, an unknown option) exits 2 like every
 * other usage error of these commands; --help still exits 0. Commander has printed the message.
 */
function usageErrorsExit2(err: CommanderError): never {
  process.exit(err.exitCode === 0 ? 0 : 2);
}

/**
 * Backups of the data dir and the database. They need no runtime (no migration, no master key
 * generated): only the configuration.
 */
export function registerBackupCommands(program: Command): void {
  program
    .command('backup')
    .description(
      'a consistent copy of the SQLite database (online backup), the spool and the blobs into an empty directory; ' +
        'on MySQL/MariaDB the files only (back the database up with mariadb-dump or mariabackup first)',
    )
    .requiredOption('--to <dir>', 'backup directory (new or empty, outside the data dir)')
    .exitOverride(usageErrorsExit2)
    .action((options: { to: string }) =>
      reportIntegrity(async () => {
        printJson(await createBackup(loadConfig(), options.to, { progress: showProgress('backup'), warn }));
      }),
    );
  program
    .command('restore')
    .description(
      'restore a backup into the configured data dir and database (stop the appliance first); ' +
        'refused when the target holds data unless --force',
    )
    .requiredOption('--from <dir>', 'backup directory made by `mailroom backup`')
    .option('--force', 'overwrite a database, spool or master key the target already holds')
    .exitOverride(usageErrorsExit2)
    .action((options: { from: string; force?: boolean }) =>
      reportIntegrity(async () => {
        printJson(
          await restoreBackup(loadConfig(), options.from, {
            force: Boolean(options.force),
            progress: showProgress('restore'),
            warn,
          }),
        );
      }),
    );
}
