import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { postLoad } from './http-load.js';

export type LoadRequest = {
  url: string;
  headers: Record<string, string>;
  total: number;
  concurrency: number;
  warmup: number;
};
/** The measured run, and the load generator's CPU time (user + system, seconds) over it. */
export type LoadResult = Awaited<ReturnType<typeof postLoad>> & { clientCpuSeconds: number };

/**
 * Runs `warmup` unmeasured requests, then `total` measured ones, from a child process (see
 * load-process.child.ts), and resolves with the measured run. `onMeasuredStart` is called when
 * the warm-up is over, before the measured requests start.
 */
export function postLoadInChild(request: LoadRequest, onMeasuredStart: () => void = () => {}): Promise<LoadResult> {
  const child = fork(fileURLToPath(new URL('./load-process.child.ts', import.meta.url)), [], {
    execArgv: ['--import', import.meta.resolve('tsx')],
    stdio: 'inherit',
  });
  return new Promise((resolve, reject) => {
    child.on('message', (message) => {
      if ((message as { warmedUp?: boolean }).warmedUp) onMeasuredStart();
      else resolve(message as LoadResult);
    });
    child.once('exit', (code) => reject(new Error(`load generator exited (${code}) without a result`)));
    child.send(request);
  });
}
