import type { Command } from 'commander';
import { migrations } from '../../db/migrations/index.js';
import { migrateDownAll, migrateLatest } from '../../db/migrate.js';
import { createRuntime, type Runtime } from '../../app/runtime.js';
import { loadConfig, maskConfig } from '../../lib/config/load-config.js';
import { createLogger } from '../../lib/logger.js';
import { jobs } from '../../scheduler/jobs/index.js';
import { printJson, UsageError } from '../output.js';

/** Runs `work` against a runtime whose logs go to stderr, so stdout stays machine-readable. */
export async function withRuntime<T>(
  work: (runtime: Runtime) => Promise<T>,
  options: { migrate?: boolean } = {},
): Promise<T> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, {
    fd: 2,
    pretty: config.env === 'development',
  });
  const runtime = await createRuntime(config, { ...options, logger });
  try {
    return await work(runtime);
  } finally {
    await runtime.close();
  }
}

export function registerAdminCommands(program: Command): void {
  program
    .command('migrate')
    .description('apply pending database migrations (safe to run again)')
    .option('--down-all', 'roll every migration back (destroys data; for development)')
    .action((options: { downAll?: boolean }) =>
      withRuntime(
        async (runtime) => {
          const done = options.downAll ? await migrateDownAll(runtime.db.knex) : await migrateLatest(runtime.db.knex);
          printJson({ [options.downAll ? 'reverted' : 'applied']: done, known: migrations.length });
        },
        { migrate: false },
      ),
    );
  program
    .command('config')
    .description('configuration')
    .command('print')
    .description('print the resolved configuration, secrets masked')
    .action(() => printJson(maskConfig(loadConfig())));
  program
    .command('job')
    .description('scheduled jobs')
    .command('run <name>')
    .description('run one scheduled job now (it takes the job lease like a scheduled run)')
    .addHelpText('after', () => `\nJobs:\n${jobList()}`)
    .action((name: string) => {
      if (!jobs.some((job) => job.name === name))
        throw new UsageError(`unknown job ${name}; known jobs: ${jobs.map((job) => job.name).join(', ')}`);
      return withRuntime(async (runtime) => {
        const { startScheduler } = await import('../../scheduler/scheduler.js');
        const scheduler = startScheduler(runtime);
        try {
          printJson({ job: name, result: await scheduler.runNow(name) });
        } finally {
          await scheduler.stop();
        }
      });
    });
}

/** The scheduler's jobs, one per line with what it does, for `job run --help`. */
function jobList(): string {
  const width = Math.max(...jobs.map((job) => job.name.length));
  return jobs.map((job) => `  ${job.name.padEnd(width)}  ${job.description}`).join('\n');
}
