import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';

/** A redis-server or redis-sentinel of the test cluster, started from the files the Ansible roles render. */
export type RedisProcess = { child: ChildProcess; stop(signal?: NodeJS.Signals): Promise<void> };

async function waitForPing(address: string, port: number, password: string | undefined, child: ChildProcess) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`redis on ${address}:${port} exited (${child.exitCode})`);
    const client = new Redis({
      host: address,
      port,
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      ...(password ? { password } : {}),
    });
    client.on('error', () => undefined);
    try {
      await client.connect();
      if ((await client.ping()) === 'PONG') return;
    } catch {
      // not yet
    } finally {
      client.disconnect();
    }
    if (Date.now() > deadline) throw new Error(`redis on ${address}:${port} did not answer`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function handle(child: ChildProcess): RedisProcess {
  return {
    child,
    stop: (signal = 'SIGTERM') =>
      child.exitCode !== null || child.signalCode !== null
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            child.once('exit', () => resolve());
            child.kill(signal);
          }),
  };
}

/**
 * redis-server with the role's rendered settings (`include`: bind, port, password, replicaof),
 * keeping nothing on disk, in a directory of its own.
 */
export async function startRedisServer(
  dir: string,
  include: string,
  target: { address: string; port: number; password: string },
): Promise<RedisProcess> {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'redis.conf');
  writeFileSync(file, [`include ${include}`, `dir ${dir}`, 'save ""', 'appendonly no', 'daemonize no', ''].join('\n'));
  const child = spawn('redis-server', [file], { stdio: 'ignore' });
  await waitForPing(target.address, target.port, target.password, child);
  return handle(child);
}

/** redis-sentinel from a copy of the rendered sentinel.conf (Sentinel rewrites its file as it learns). */
export async function startSentinel(
  dir: string,
  rendered: string,
  target: { address: string; port: number },
): Promise<RedisProcess> {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'sentinel.conf');
  copyFileSync(rendered, file);
  const child = spawn('redis-server', [file, '--sentinel'], { stdio: 'ignore', cwd: dir });
  await waitForPing(target.address, target.port, undefined, child);
  return handle(child);
}
