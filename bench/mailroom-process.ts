import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createDomainSchema } from '../core/sending/domains/domain.schemas.js';
import { createRuntime } from '../app/runtime.js';
import { loadConfig } from '../lib/config/load-config.js';
import { createLogger } from '../lib/logger.js';

const BIN = fileURLToPath(new URL('../bin/mailroom.js', import.meta.url));

/**
 * Creates the database and a team that may send from bench.test (verified, out of the sandbox,
 * unlimited plan) with a key (sending by default); returns the key's token.
 */
export async function seedBenchTeam(
  env: Record<string, string>,
  permission: 'sending_access' | 'full_access' = 'sending_access',
): Promise<string> {
  const runtime = await createRuntime(loadConfig(env), { logger: createLogger('silent') });
  try {
    const team = await runtime.services.teams.create({ name: 'Bench', planCode: 'unlimited' });
    await runtime.services.teams.setTier(team.id, 2);
    const view = await runtime.services.domains.create(team, createDomainSchema.parse({ name: 'bench.test' }));
    await runtime.db.knex('domains').where({ id: view.domain.id }).update({ status: 'verified' });
    return (await runtime.services.apiKeys.create(team.id, { name: 'bench', permission })).token;
  } finally {
    await runtime.close();
  }
}

/**
 * `mailroom <command>` as a real process; `ready` resolves with the API's URL once it listens.
 * Error-level log lines (and output that is not a log line, e.g. node's own with extra node
 * options) go to `onError` (default: stderr); stderr goes to `onStderr` line by line when given
 * (else it is inherited). `detached` gives it a process group of its own, so a benchmark can kill
 * the whole group. `baseEnv` (default: this process's) is what `env` is laid over.
 */
export function spawnAppliance(
  command: 'api' | 'start',
  env: Record<string, string>,
  options: {
    nodeArgs?: string[];
    detached?: boolean;
    extraPipe?: boolean;
    baseEnv?: NodeJS.ProcessEnv;
    onError?: (line: string) => void;
    onStderr?: (line: string) => void;
  } = {},
): { child: ChildProcess; ready: Promise<string> } {
  const stdio: StdioOptions = [
    'ignore',
    'pipe',
    options.onStderr ? 'pipe' : 'inherit',
    ...(options.extraPipe ? (['pipe'] as const) : []),
  ];
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), BIN, command], {
    env: {
      ...(options.baseEnv ?? process.env),
      MAILROOM_METRICS_PORT: '0',
      ...env,
      MAILROOM_LOG_LEVEL: 'info',
      MAILROOM_FROM_SOURCE: '1',
    },
    stdio,
    detached: options.detached,
  });
  const onError = options.onError ?? ((line: string) => process.stderr.write(`${line}\n`));
  if (options.onStderr) createInterface({ input: child.stderr! }).on('line', options.onStderr);
  const ready = new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const entry = (() => {
        try {
          return JSON.parse(line) as { msg?: string; url?: string; level?: number };
        } catch {
          return { level: 100 };
        }
      })();
      if (entry.msg === 'API listening' && entry.url) resolve(entry.url);
      else if ((entry.level ?? 0) >= 50) onError(line);
    });
    child.once('exit', (code, signal) =>
      reject(new Error(`mailroom ${command} exited before listening (${code ?? signal})`)),
    );
  });
  return { child, ready };
}

/**
 * `mailroom api` as a real process (a cluster when MAILROOM_API_WORKERS > 1); resolves once it
 * listens. BENCH_NODE_ARGS adds node options (e.g. `--cpu-prof --cpu-prof-dir=prof`; workers inherit them).
 */
export async function startMailroomProcess(
  env: Record<string, string>,
  options: { onError?: (line: string) => void } = {},
): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const { child, ready } = spawnAppliance('api', env, { nodeArgs, onError: options.onError });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await ready;
  return {
    url,
    pid: child.pid!,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
