import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createConnection, createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';

/** Where scripts/fetch-smtp-sink.sh unpacks Postfix (relative to the repository). */
const CACHED = fileURLToPath(new URL('../../.cache/postfix/root/usr/sbin/smtp-sink', import.meta.url));

export const SMTP_SINK_MISSING =
  "Postfix's smtp-sink is not available: run `npm run setup:smtp-sink` (or set MAILROOM_SMTP_SINK to its path)";

/** The smtp-sink binary: MAILROOM_SMTP_SINK, else the fetch script's cache; undefined when absent. */
export function findSmtpSink(): string | undefined {
  const path = process.env.MAILROOM_SMTP_SINK || CACHED;
  return existsSync(path) ? path : undefined;
}

/**
 * The binary, or undefined after making the missing tool visible: on CI (CI set) the test fails,
 * so a machine without it cannot pass; elsewhere the file is skipped with the reason (plan 0),
 * never passed silently.
 */
export function smtpSinkOrSkip(t: Test): string | undefined {
  const binary = findSmtpSink();
  if (binary) return binary;
  if (process.env.CI) {
    t.fail(SMTP_SINK_MISSING);
    t.end();
  } else {
    t.plan(0, SMTP_SINK_MISSING);
  }
  return undefined;
}

export type PostfixSinkOptions = {
  binary: string;
  host: string;
  port: number;
  /** smtp-sink options before the address, e.g. ['-q', '.'] or ['-r', 'rcpt', '-b', '452 4.2.2 Mailbox full']. */
  flags?: string[];
};

/**
 * Runs smtp-sink ("$0" "$@") under sh, which kills it when our end of its stdin closes: at
 * stop(), and also when the test process dies without its teardown (time-out, crash, kill -9),
 * so no sink outlives the test. sh exits once smtp-sink has (its port is free again).
 */
const GUARD = `exec 3<&0
"$0" "$@" </dev/null &
pid=$!
{ read -r _ <&3; kill "$pid" 2>/dev/null; } &
wait "$pid"`;

/**
 * Postfix's smtp-sink as a child process on one loopback address and port: a real, independent
 * SMTP server whose faults (hang-up after the dot, 4xx/5xx at a command, a slow DATA reply) come
 * from its flags. Each transaction that reaches DATA is dumped into a file of the sink's own
 * directory, so a test counts what arrived; the directory outlives `switchTo`, which restarts
 * the server with other flags on the same address and port.
 */
export class PostfixSmtpSink {
  private child: ChildProcess | null = null;
  private stderr = '';
  readonly dumpDir = mkdtempSync(join(tmpdir(), 'mailroom-smtp-sink-'));

  private constructor(private readonly options: PostfixSinkOptions) {}

  static async start(options: PostfixSinkOptions): Promise<PostfixSmtpSink> {
    const sink = new PostfixSmtpSink(options);
    await sink.launch(options.flags ?? []);
    return sink;
  }

  get address(): string {
    return `${this.options.host}:${this.options.port}`;
  }

  /** Stops the server and starts it again with other flags (e.g. [] to accept everything). */
  async switchTo(flags: string[]): Promise<void> {
    await this.kill();
    await this.launch(flags);
  }

  /** The dumped transactions (envelope as X- headers, then the data as received). */
  dumped(): string[] {
    return readdirSync(this.dumpDir).map((name) => readFileSync(join(this.dumpDir, name), 'latin1'));
  }

  /** How many dumped transactions contain `text` (e.g. the recipient). */
  count(text: string): number {
    return this.dumped().filter((dump) => dump.includes(text)).length;
  }

  async stop(): Promise<void> {
    await this.kill();
    rmSync(this.dumpDir, { recursive: true, force: true });
  }

  private async launch(flags: string[]): Promise<void> {
    const { binary, host, port } = this.options;
    // As root smtp-sink insists on -u (it drops privileges after binding); root keeps the dump
    // directory writable. As another user -u would fail, and is not needed.
    const privileges = process.getuid?.() === 0 ? ['-u', 'root'] : [];
    // The trailing "/m." is a strftime template; smtp-sink appends a random hex suffix per dump.
    const args = [...privileges, '-d', `${this.dumpDir}/m.`, ...flags, `${host}:${port}`, '64'];
    // Postfix's shared libraries sit beside the binary's tree, not on the system path.
    const libraries = resolve(dirname(binary), '../lib/postfix');
    const env = { ...process.env, LD_LIBRARY_PATH: [libraries, process.env.LD_LIBRARY_PATH].filter(Boolean).join(':') };
    const child = spawn('sh', ['-c', GUARD, binary, ...args], { env, stdio: ['pipe', 'ignore', 'pipe'] });
    this.child = child;
    this.stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    await this.untilListening(child).catch(async (err: unknown) => {
      await this.kill();
      throw err;
    });
  }

  /** Polls until the server greets; fails at once if the process exits (bad flag, port taken). */
  private async untilListening(child: ChildProcess): Promise<void> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`smtp-sink on ${this.address} exited: ${this.stderr.trim()}`);
      if (await greets(this.options.host, this.options.port)) return;
      if (Date.now() > deadline)
        throw new Error(`smtp-sink on ${this.address} did not start listening: ${this.stderr.trim()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  private async kill(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child) return;
    const running = child.exitCode === null && child.signalCode === null;
    const exited = running ? new Promise((r) => child.once('exit', r)) : undefined;
    child.stdin!.end();
    await exited;
  }
}

/**
 * A port free on `host`, for servers that cannot pick their own (smtp-sink needs it on the
 * command line, and every destination of one MTA shares it: `mta.port`).
 */
export function freePort(host: string): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolvePromise(port));
    });
  });
}

/** True once something on host:port sends an SMTP greeting (220). */
function greets(host: string, port: number): Promise<boolean> {
  return new Promise((resolvePromise) => {
    const socket = createConnection({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolvePromise(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('data', (chunk) => done(chunk.toString().startsWith('220')));
  });
}
