import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/mailroom.js', import.meta.url));

export type SchedulerProcess = {
  pid: number;
  /** Emails the fan-out-broadcasts job reported creating so far (its "job finished" lines). */
  fannedOut(): number;
  /** Of those, rendered on the broadcast's template and composed fully (the job's onTemplate, composedFully). */
  rendering(): { template: number; composed: number };
  stop(): Promise<void>;
};

/**
 * `mailroom scheduler` as a real process (the cron jobs, the fan-out among them, every 5 s);
 * resolves once it has logged "scheduler started". Error-level lines and output that is not a
 * log line go to `onError` (default: stderr). BENCH_NODE_ARGS adds node options, as for the other processes.
 */
export async function startSchedulerProcess(
  env: Record<string, string>,
  onError: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<SchedulerProcess> {
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, BIN, 'scheduler'], {
    env: { ...process.env, MAILROOM_METRICS_PORT: '0', ...env, MAILROOM_LOG_LEVEL: 'info', MAILROOM_FROM_SOURCE: '1' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let emails = 0;
  const rendering = { template: 0, composed: 0 };
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      let entry: {
        msg?: string;
        level?: number;
        job?: string;
        emails?: number;
        onTemplate?: number;
        composedFully?: number;
      };
      try {
        entry = JSON.parse(line) as typeof entry;
      } catch {
        entry = { level: 100 };
      }
      if (entry.msg === 'scheduler started') resolve();
      else if (entry.msg === 'job finished' && entry.job === 'fan-out-broadcasts') {
        emails += entry.emails ?? 0;
        rendering.template += entry.onTemplate ?? 0;
        rendering.composed += entry.composedFully ?? 0;
      } else if ((entry.level ?? 0) >= 50) onError(line);
    });
    child.once('exit', (code, signal) =>
      reject(new Error(`mailroom scheduler exited before starting (${code ?? signal})`)),
    );
  });
  return {
    pid: child.pid!,
    fannedOut: () => emails,
    rendering: () => ({ ...rendering }),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
