import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../test/helpers/postfix-smtp-sink.js';
import { alive, stopGroup, treeCpuSeconds } from '../inbound/process-tree.js';
import { seedBenchTeam } from '../mailroom-process.js';
import { MTA_NODE_OPTIONS } from '../mta-node-options.js';
import { dropDatabase } from '../inbound/mailroom-mx.js';

const BIN = fileURLToPath(new URL('../../bin/mailroom.js', import.meta.url));

export type MailroomRelayOptions = {
  dir: string;
  /** mysql://root@127.0.0.1:3306 (a database of its own is created and dropped). */
  mysqlServer: string;
  redis: string;
  /** host:port of the DNS server holding the sink domain's MX. */
  dns: string;
  sinkPort: number;
  egress: string;
};

/**
 * Our relay as production runs it: `mailroom submission` and `mailroom mta` as two real
 * processes (each in a process group of its own; as systemd's mailroom-submission and
 * mailroom-mta units), MAILROOM_ENV=production, MariaDB and Redis, the team's verified domain
 * bench.test with its RSA-2048 DKIM key (the default a new domain gets). The submission port
 * takes AUTH PLAIN with the team's sending key on plain TCP (submission.allowInsecureAuth, loopback
 * only); each message is durably accepted (MariaDB commit) before its 250; the MTA signs it and
 * delivers it to the MX of the recipient domain (the loopback DNS server says: the sink).
 */
export class MailroomRelay {
  readonly name = 'Mailroom';
  readonly host = '127.0.0.1';
  readonly errors: string[] = [];
  private children: ChildProcess[] = [];

  private constructor(
    readonly port: number,
    readonly token: string,
    private readonly database: { server: string; name: string },
  ) {}

  static async start(options: MailroomRelayOptions): Promise<MailroomRelay> {
    const dataDir = join(options.dir, 'data');
    mkdirSync(dataDir, { recursive: true });
    const port = await freePort('127.0.0.1');
    const configFile = join(options.dir, 'mailroom.json');
    writeFileSync(
      configFile,
      JSON.stringify({
        submission: { host: '127.0.0.1', port, allowInsecureAuth: true },
        mta: {
          hostname: 'mta.bench.test',
          port: options.sinkPort,
          regions: { 'us-east-1': { ips: [{ address: options.egress, helo: 'out.bench.test' }] } },
        },
      }),
    );
    const database = { server: options.mysqlServer, name: `mailroom_bench_relay_${process.pid}` };
    const url = new URL(options.mysqlServer);
    url.pathname = `/${database.name}`;
    const env: Record<string, string> = {
      MAILROOM_CONFIG: configFile,
      MAILROOM_ENV: 'production',
      MAILROOM_MASTER_KEY: randomBytes(32).toString('base64'),
      MAILROOM_DATA_DIR: dataDir,
      MAILROOM_DATABASE_URL: url.toString(),
      MAILROOM_REDIS_URL: options.redis,
      MAILROOM_REDIS_KEY_PREFIX: `mailroom-bench-relay:${process.pid}:`,
      MAILROOM_DNS_SERVERS: options.dns,
      // The team's API/submission rate limit (default 10/s) is a policy knob, not the relay's cost.
      MAILROOM_RATE_LIMIT_PER_SECOND: '100000',
    };
    const token = await seedBenchTeam(env);
    const relay = new MailroomRelay(port, token, database);
    try {
      await Promise.all([
        relay.spawn('submission', env, [], 'submission listening'),
        relay.spawn('mta', env, [...MTA_NODE_OPTIONS], 'mta worker started'),
      ]);
    } catch (err) {
      await relay.stop();
      throw err;
    }
    return relay;
  }

  private spawn(command: string, env: Record<string, string>, nodeArgs: string[], readyMessage: string): Promise<void> {
    // Nothing of the caller's MAILROOM_* environment leaks in.
    const baseEnv = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('MAILROOM_')));
    const child = spawn(process.execPath, [...nodeArgs, BIN, command], {
      env: { ...baseEnv, MAILROOM_METRICS_PORT: '0', ...env, MAILROOM_LOG_LEVEL: 'info', MAILROOM_FROM_SOURCE: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    this.children.push(child);
    const keep = (line: string) => {
      if (this.errors.length < 20) this.errors.push(`${command}: ${line.slice(0, 500)}`);
    };
    createInterface({ input: child.stderr! }).on('line', keep);
    let ready = false;
    return withTimeout(
      new Promise<void>((resolve, reject) => {
        createInterface({ input: child.stdout! }).on('line', (line) => {
          if (ready) {
            if (line.includes('"level":50') || line.includes('"level":60')) keep(line);
            return;
          }
          let entry: { msg?: string; level?: number };
          try {
            entry = JSON.parse(line) as typeof entry;
          } catch {
            return keep(line);
          }
          if (entry.msg === readyMessage) {
            ready = true;
            resolve();
          } else if ((entry.level ?? 0) >= 50) keep(line);
        });
        child.once('exit', (code, signal) =>
          reject(new Error(`mailroom ${command} exited (${code ?? signal}): ${this.errors.join(' | ')}`)),
        );
      }),
      60_000,
      `mailroom ${command} to start`,
    );
  }

  get pids(): number[] {
    return this.children.map((child) => child.pid!).filter(Boolean);
  }

  /** CPU seconds so far of the submission process and of the mta process (their children included). */
  cpu(): Record<string, number> {
    const [submission, mta] = this.children;
    return { submission: treeCpuSeconds(submission!.pid!), mta: treeCpuSeconds(mta!.pid!) };
  }

  get running(): boolean {
    return this.children.length > 0 && this.children.every(alive);
  }

  async stop(): Promise<void> {
    await Promise.all(this.children.map((child) => stopGroup(child)));
    await dropDatabase(this.database.server, this.database.name).catch(() => undefined);
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms))),
  ]).finally(() => clearTimeout(timer));
}
