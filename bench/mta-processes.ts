import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { cpuSecondsOfPids } from './cpu-ticks.js';
import { MTA_NODE_OPTIONS } from './mta-node-options.js';

const BIN = fileURLToPath(new URL('../bin/mailroom.js', import.meta.url));

export type MtaProcesses = {
  /** performance.now() when the first process logged "mta worker started" (its loop has begun). */
  startedAt: number;
  /** CPU seconds the processes have used so far. */
  cpuSeconds(): number;
  stop(): Promise<void>;
};

/**
 * `count` real `mailroom mta` processes on the appliance's configuration (as production runs
 * the MTA: its own processes, sharing the queue through the claim). Resolves once every one
 * has started its worker; the timing starts at the first of them, so a process that is slower
 * to start only counts against Mailroom. They run with production's node options
 * (MTA_NODE_OPTIONS); BENCH_NODE_ARGS adds more (--cpu-prof ...).
 */
export async function startMtaProcesses(count: number, env: Record<string, string>): Promise<MtaProcesses> {
  const nodeArgs = [...MTA_NODE_OPTIONS, ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean)];
  const children: ChildProcess[] = [];
  const started: number[] = [];
  try {
    await Promise.all(
      Array.from({ length: count }, () => {
        const child = spawn(process.execPath, [...nodeArgs, BIN, 'mta'], {
          env: { ...process.env, ...env, MAILROOM_LOG_LEVEL: 'info', MAILROOM_FROM_SOURCE: '1' },
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        children.push(child);
        return new Promise<void>((resolve, reject) => {
          createInterface({ input: child.stdout! }).on('line', (line) => {
            const entry = parseLine(line);
            if (entry.msg === 'mta worker started') {
              started.push(performance.now());
              resolve();
            } else if ((entry.level ?? 0) >= 50) process.stderr.write(`${line}\n`);
          });
          child.once('exit', (code, signal) =>
            reject(new Error(`mailroom mta exited before starting (${code ?? signal})`)),
          );
        });
      }),
    );
  } catch (err) {
    await stopAll(children);
    throw err;
  }
  const pids = children.map((child) => child.pid!).filter(Boolean);
  return { startedAt: Math.min(...started), cpuSeconds: () => cpuSecondsOfPids(pids), stop: () => stopAll(children) };
}

function parseLine(line: string): { msg?: string; level?: number } {
  try {
    return JSON.parse(line) as { msg?: string; level?: number };
  } catch {
    return { level: 100 }; // not a log line (node's own output): show it
  }
}

async function stopAll(children: ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
        }),
    ),
  );
}
