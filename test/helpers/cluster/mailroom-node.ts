import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { TestHost } from './netns.js';

const repo = join(import.meta.dirname, '..', '..', '..');

export type NodeProcessName = 'api' | 'mta' | 'scheduler';
const READY: Record<NodeProcessName, string> = {
  api: 'API listening',
  mta: 'mta worker started',
  scheduler: 'scheduler started',
};

/**
 * One Mailroom node of the test cluster: `mailroom api`, `mailroom mta` and `mailroom scheduler`
 * as separate processes (as the systemd units run them) in the node's network namespace, under a
 * host name of their own (a UTS namespace: what the process leases record as the node), from the
 * sources. Each process's log lines go to <dir>/<process>.log and to `onLog`.
 */
export class MailroomNode {
  readonly processes = new Map<NodeProcessName, ChildProcess>();

  constructor(
    readonly name: string,
    readonly host: TestHost,
    readonly dir: string,
    readonly env: NodeJS.ProcessEnv,
    private readonly onLog: (node: string, process: NodeProcessName, entry: Record<string, unknown>) => void = () => {},
  ) {
    mkdirSync(dir, { recursive: true });
  }

  /** Starts every process (or those named) and resolves once each has logged that it is ready. */
  async start(names: NodeProcessName[] = ['api', 'mta', 'scheduler']): Promise<void> {
    await Promise.all(names.map((name) => this.startOne(name)));
  }

  private startOne(name: NodeProcessName): Promise<void> {
    const child = spawn(
      'ip',
      [
        'netns',
        'exec',
        this.host.namespace,
        'unshare',
        '--uts',
        '--',
        'sh',
        '-c',
        'hostname "$MAILROOM_TEST_NODE" && exec "$@"',
        'sh',
        process.execPath,
        'bin/mailroom.js',
        name,
      ],
      {
        cwd: repo,
        env: { ...this.env, MAILROOM_TEST_NODE: this.name, MAILROOM_FROM_SOURCE: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    this.processes.set(name, child);
    const log = createWriteStream(join(this.dir, `${name}.log`), { flags: 'a' });
    child.stderr!.pipe(log);
    return new Promise<void>((resolve, reject) => {
      createInterface({ input: child.stdout! }).on('line', (line) => {
        log.write(`${line}\n`);
        let entry: Record<string, unknown>;
        try {
          entry = JSON.parse(line) as Record<string, unknown>;
        } catch {
          return;
        }
        this.onLog(this.name, name, entry);
        if (entry.msg === READY[name]) resolve();
      });
      child.once('exit', (code, signal) =>
        reject(new Error(`${this.name} ${name} exited (${code ?? signal}) before it was ready; see ${this.dir}`)),
      );
    });
  }

  /** kill -9 of every process of the node: no shutdown, leases and claims left as they were. */
  async kill(): Promise<void> {
    await Promise.all([...this.processes.keys()].map((name) => this.stopOne(name, 'SIGKILL')));
  }

  /** A clean stop (SIGTERM) of every process. */
  async stop(): Promise<void> {
    await Promise.all([...this.processes.keys()].map((name) => this.stopOne(name, 'SIGTERM')));
  }

  private stopOne(name: NodeProcessName, signal: NodeJS.Signals): Promise<void> {
    const child = this.processes.get(name);
    if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      child.once('exit', () => resolve());
      child.kill(signal);
    });
  }
}
