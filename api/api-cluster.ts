import cluster, { type Worker } from 'node:cluster';
import { fileURLToPath } from 'node:url';
import type { Runtime } from '../app/runtime.js';
import { ConfigError } from '../lib/errors.js';
import { hasSharedRedis } from '../lib/kv/create-kv.js';
import type { ApiServer } from './api-server.types.js';

/** Messages between the primary and its API workers (over the cluster IPC channel). */
export type ClusterMessage =
  | { mailroom: 'config-please' }
  | { mailroom: 'config'; config: Runtime['config'] }
  | { mailroom: 'listening'; url: string }
  | { mailroom: 'invalidate-lookups' }
  | { mailroom: 'shutdown' };

export const isClusterMessage = (value: unknown): value is ClusterMessage =>
  typeof (value as { mailroom?: unknown })?.mailroom === 'string';

const RESTART_DELAY_MS = 1000;
const STOP_TIMEOUT_MS = 15_000;

/**
 * `api.workers` API processes sharing one port through node:cluster: the primary accepts
 * connections and hands them to the workers; it serves no request itself (in `mailroom start`
 * it runs the scheduler and the MTA). Each worker builds its own runtime from the primary's
 * resolved configuration. A change one worker (or the primary) makes to keys, teams or domains
 * is passed to every other one, so their look-up caches forget it at once. A worker that dies is
 * replaced.
 */
export async function startApiCluster(runtime: Runtime): Promise<ApiServer> {
  const { config, logger } = runtime;
  assertClusterable(runtime);
  const workerFile = fileURLToPath(
    new URL(`./api-worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url),
  );
  cluster.setupPrimary({ exec: workerFile, execArgv: workerExecArgv(workerFile) });

  const workers = new Set<Worker>();
  let closing = false;
  const broadcast = (message: ClusterMessage, except?: Worker) => {
    for (const worker of workers) if (worker !== except && worker.isConnected()) worker.send(message);
  };
  runtime.services.lookupCache.onInvalidate(() => broadcast({ mailroom: 'invalidate-lookups' }));

  const fork = () =>
    new Promise<string>((resolve, reject) => {
      const worker = cluster.fork();
      workers.add(worker);
      worker.on('message', (message: unknown) => {
        if (!isClusterMessage(message)) return;
        // Asked for once the worker has loaded (a message sent before it listens would be lost).
        if (message.mailroom === 'config-please') worker.send({ mailroom: 'config', config } satisfies ClusterMessage);
        if (message.mailroom === 'listening') resolve(message.url);
        if (message.mailroom === 'invalidate-lookups') {
          runtime.services.lookupCache.invalidate({ propagate: false });
          broadcast(message, worker);
        }
      });
      worker.once('exit', (code, signal) => {
        workers.delete(worker);
        reject(new Error(`API worker ${worker.process.pid} exited before listening (${code ?? signal})`));
        if (closing) return;
        logger.error({ pid: worker.process.pid, code, signal }, 'API worker exited; starting another');
        setTimeout(
          () => void fork().catch((err: unknown) => logger.error({ err }, 'API worker did not start')),
          RESTART_DELAY_MS,
        ).unref();
      });
    });

  let urls: string[];
  try {
    urls = await Promise.all(Array.from({ length: config.api.workers }, fork));
  } catch (err) {
    closing = true;
    await stopWorkers(workers);
    throw err;
  }
  const url = urls[0]!;
  if (!config.api.publicUrl) runtime.publicUrl.value = url;
  logger.info({ url, workers: urls.length }, 'API listening');
  return {
    server: null,
    url,
    close: async () => {
      closing = true;
      await stopWorkers(workers);
    },
  };
}

/** Several workers share rate limits and data: the in-process store and SQLite cannot be shared. */
function assertClusterable(runtime: Runtime): void {
  const { config } = runtime;
  if (!hasSharedRedis(config.redis))
    throw new ConfigError(
      'Invalid configuration:\n  api.workers: more than 1 worker needs redis.url or redis.sentinels (rate limits are shared through Redis)',
    );
  if (runtime.db.dialect !== 'mysql')
    throw new ConfigError('Invalid configuration:\n  api.workers: more than 1 worker needs a MySQL database.url');
}

/** Workers run the same TypeScript sources through tsx, unless this process already loads it. */
function workerExecArgv(workerFile: string): string[] {
  const hasTsx = process.execArgv.some((arg) => arg.includes('tsx'));
  return workerFile.endsWith('.ts') && !hasTsx
    ? [...process.execArgv, '--import', import.meta.resolve('tsx')]
    : process.execArgv;
}

/** Asks every worker to drain and waits for it to exit; one that hangs is killed. */
async function stopWorkers(workers: Set<Worker>): Promise<void> {
  await Promise.all(
    [...workers].map(
      (worker) =>
        new Promise<void>((resolve) => {
          if (worker.isDead()) return resolve();
          const timer = setTimeout(() => worker.process.kill('SIGKILL'), STOP_TIMEOUT_MS);
          worker.once('exit', () => {
            clearTimeout(timer);
            resolve();
          });
          if (worker.isConnected()) worker.send({ mailroom: 'shutdown' } satisfies ClusterMessage);
          else worker.process.kill('SIGTERM');
        }),
    ),
  );
}
