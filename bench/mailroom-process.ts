import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createDomainSchema } from '../core/sending/domains/domain.schemas.js';
import { createRuntime } from '../app/runtime.js';
import { loadConfig } from '../lib/config/load-config.js';
import { createLogger } from '../lib/logger.js';

const BIN = fileURLToPath(new URL('../bin/mailroom.js', import.meta.url));

/**
 * Creates the database and a team that may send from bench.test (verified, out of the sandbox,
 * unlimited plan) with a sending key; returns the key's token.
 */
export async function seedBenchTeam(env: Record<string, string>): Promise<string> {
  const runtime = await createRuntime(loadConfig(env), { logger: createLogger('silent') });
  try {
    const team = await runtime.services.teams.create({ name: 'Bench', planCode: 'unlimited' });
    await runtime.services.teams.setTier(team.id, 2);
    const view = await runtime.services.domains.create(team, createDomainSchema.parse({ name: 'bench.test' }));
    await runtime.db.knex('domains').where({ id: view.domain.id }).update({ status: 'verified' });
    return (await runtime.services.apiKeys.create(team.id, { name: 'bench', permission: 'sending_access' })).token;
  } finally {
    await runtime.close();
  }
}

/**
 * `mailroom api` as a real process (a cluster when MAILROOM_API_WORKERS > 1); resolves once it
 * listens. BENCH_NODE_ARGS adds node options (e.g. `--cpu-prof --cpu-prof-dir=prof`; workers inherit them).
 */
export async function startMailroomProcess(env: Record<string, string>): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, BIN, 'api'], { env: { ...process.env, ...env, MAILROOM_LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const entry = (() => {
        try {
          return JSON.parse(line) as { msg?: string; url?: string; level?: number };
        } catch {
          return { level: 100 }; // not a log line (node's own output, e.g. with BENCH_NODE_ARGS): show it
        }
      })();
      if (entry.msg === 'API listening' && entry.url) resolve(entry.url);
      else if ((entry.level ?? 0) >= 50) process.stderr.write(`${line}\n`);
    });
    void exited.then(() => reject(new Error('mailroom api exited before listening')));
  });
  return {
    url,
    pid: child.pid!,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
