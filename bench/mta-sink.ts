import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../test/helpers/postfix-smtp-sink.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Path of Postfix's smtp-sink, through scripts/fetch-smtp-sink.sh (apt-get download postfix +
 * dpkg -x into .cache/postfix, once): only the package is unpacked, nothing is installed.
 */
export function smtpSinkPath(): string {
  return execFileSync('bash', [join(ROOT, 'scripts/fetch-smtp-sink.sh')], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
}

/**
 * smtp-sink as the one receiving server both MTAs deliver to: it accepts every message and
 * throws it away, so the figures measure the sending side. `-c` makes it print its counters
 * (`sess=.. quit=.. mesg=N`) each time a message ends; `received` follows them, so waiting for
 * "all N arrived" costs the sender nothing.
 */
export class SinkProcess {
  received = 0;
  private waiters: Array<{ count: number; resolve: () => void }> = [];

  private constructor(
    private readonly child: ChildProcess,
    readonly host: string,
    readonly port: number,
  ) {
    let pending = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      pending += chunk;
      const counters = pending.split(/[\r\n]/);
      pending = counters.pop() ?? '';
      for (const line of counters) {
        const match = /mesg=(\d+)/.exec(line);
        if (match) this.received = Math.max(this.received, Number(match[1]));
      }
      this.waiters = this.waiters.filter((w) => (this.received >= w.count ? (w.resolve(), false) : true));
    });
  }

  static async start(host: string): Promise<SinkProcess> {
    const path = smtpSinkPath();
    const port = await freePort(host);
    const root = resolve(dirname(path), '../..');
    // -u: smtp-sink refuses to keep root privileges; -m: room for every client connection.
    const child = spawn(path, ['-4', '-c', '-u', 'nobody', '-m', '1000', `${host}:${port}`, '1024'], {
      env: { ...process.env, LD_LIBRARY_PATH: join(root, 'usr/lib/postfix') },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const sink = new SinkProcess(child, host, port);
    await waitListening(host, port);
    return sink;
  }

  /** Resolves once `count` messages (in total, since the sink started) have been received. */
  waitFor(count: number): Promise<void> {
    if (this.received >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }

  stop(): Promise<void> {
    if (this.child.exitCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      this.child.once('exit', () => resolve());
      this.child.kill('SIGTERM');
    });
  }
}

async function waitListening(host: string, port: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, host, () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`smtp-sink did not listen on ${host}:${port}`);
}
