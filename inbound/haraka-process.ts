import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import type { Logger } from '../lib/logger.js';

const require = createRequire(import.meta.url);

/** Haraka's own start script, from the installed package. */
export function harakaBin(): string {
  return require.resolve('Haraka/bin/haraka');
}

/** Whether nothing listens on host:port (we can bind it ourselves). */
export function portIsFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, host, () => probe.close(() => resolve(true)));
  });
}

/**
 * Haraka as a child process, restarted if it dies (after a second, so a crash loop does not
 * spin); its log lines go to ours. Its stdin is a pipe from us that it watches (the
 * `mailroom_lifeline` plugin): if we die, even by kill -9, it shuts down instead of holding the
 * port. `stop()` ends it with SIGTERM and waits.
 */
export class HarakaProcess {
  private child: ChildProcess | null = null;
  private stopping = false;

  constructor(
    private readonly options: {
      dir: string;
      host: string;
      port: number;
      env: NodeJS.ProcessEnv;
      logger: Logger;
      /** Told every pid Haraka runs as (the first and each restart), e.g. for a pid file. */
      onSpawn?: (pid: number) => void;
    },
  ) {}

  /** Starts Haraka and resolves once it says it listens on our port (not merely once something does). */
  async start(timeoutMs = 30_000): Promise<void> {
    const { host, port } = this.options;
    if (!(await portIsFree(host, port)))
      throw new Error(`inbound: ${host}:${port} is already in use; is another MX (or another Mailroom) running?`);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`Haraka did not listen on ${host}:${port} in time`)), timeoutMs);
      const child = this.spawn(() => {
        clearTimeout(timer);
        resolve();
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`Haraka exited with code ${code} before it listened on ${host}:${port}`));
      });
    });
  }

  private spawn(onListening?: () => void): ChildProcess {
    const { logger } = this.options;
    const child = spawn(process.execPath, [harakaBin(), '-c', this.options.dir], {
      env: this.options.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child = child;
    if (child.pid) this.options.onSpawn?.(child.pid);
    const forward = (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (!line.trim()) continue;
        if (onListening && line.includes('Listening on')) onListening();
        // Haraka's per-connection notices would be a log line each per message (ours says what
        // matters): they go to debug; its warnings and errors stay visible.
        if (/^\[(?:WARN|ERROR|CRIT|ALERT|EMERG)\]/.test(line)) logger.warn({ haraka: line.trim() }, 'inbound: haraka');
        else logger.debug({ haraka: line.trim() }, 'inbound: haraka');
      }
    };
    child.stdout!.on('data', forward);
    child.stderr!.on('data', forward);
    child.stdin!.on('error', () => undefined);
    child.once('exit', (code, signal) => {
      if (this.stopping) return;
      logger.error({ code, signal }, 'inbound: Haraka exited; starting it again in 1 s');
      setTimeout(() => {
        if (!this.stopping) this.spawn();
      }, 1000).unref();
    });
    return child;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  }
}
