import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import mysql from 'mysql2/promise';
import { createRuntime } from '../../app/runtime.js';
import { createDomainSchema } from '../../core/sending/domains/domain.schemas.js';
import { loadConfig } from '../../lib/config/load-config.js';
import { createLogger } from '../../lib/logger.js';
import { SegmentSpool } from '../../lib/spool/segment-spool.js';
import { parseSpoolRef } from '../../lib/spool/spool-ref-text.js';
import { freePort } from '../../test/helpers/postfix-smtp-sink.js';
import { alive, stopGroup, treeCpuSeconds } from './process-tree.js';

const BIN = fileURLToPath(new URL('../../bin/mailroom.js', import.meta.url));

export type MailroomMxOptions = {
  /** Working directory of this appliance (data directory, SQLite file, Haraka's run directory). */
  dir: string;
  /** The receiving domain the team gets; the MX accepts mail for any address on it. */
  domain: string;
  /** mysql://user@host:port of a MariaDB/MySQL server, or null for the embedded SQLite default. */
  mysqlServer: string | null;
  /** host:port of the DNS server the SPF/DMARC checks of received mail ask. */
  dns: string;
  /** Simultaneous connections the load makes from 127.0.0.1 (the per-client limit must allow them). */
  concurrency: number;
};

/**
 * Our inbound MX as production runs it: `mailroom inbound` as a real process (in a process
 * group of its own), which starts Haraka with our plugins as its child and answers their bridge
 * calls; every accepted message is written to the blob store (fsynced) and its rows committed
 * before Haraka says 250. Configuration is the production default except what a benchmark must
 * set (data directory, database, free port, DNS servers, the per-client connection limit).
 */
export class MailroomMx {
  readonly name = 'Mailroom MX';
  readonly host = '127.0.0.1';

  private constructor(
    private readonly child: ChildProcess,
    /** Error-level log lines and stderr of the process (the first 20). */
    readonly errors: string[],
    readonly port: number,
    readonly harakaPid: number,
    private readonly env: Record<string, string>,
    private readonly database: { server: string; name: string } | null,
  ) {}

  /** The settings the appliance runs with, for the printed conditions. */
  static describe(options: MailroomMxOptions): string {
    const limit = Math.max(20, options.concurrency);
    return `\`mailroom inbound\` (MAILROOM_ENV=production, log level info), ${options.mysqlServer ? 'MariaDB/MySQL' : 'embedded SQLite (WAL, synchronous=FULL)'}, inbound.maxConnectionsPerClient ${limit}, SPF/DKIM/DMARC checks against a loopback DNS server`;
  }

  static async start(options: MailroomMxOptions): Promise<MailroomMx> {
    const dataDir = join(options.dir, 'data');
    mkdirSync(dataDir, { recursive: true });
    const configFile = join(options.dir, 'mailroom.json');
    // The default allows 20 connections per client address; the load comes from one address.
    writeFileSync(
      configFile,
      JSON.stringify({ inbound: { maxConnectionsPerClient: Math.max(20, options.concurrency) } }),
    );
    const database = options.mysqlServer
      ? { server: options.mysqlServer, name: `mailroom_bench_inbound_${process.pid}` }
      : null;
    const env: Record<string, string> = {
      MAILROOM_CONFIG: configFile,
      MAILROOM_ENV: 'production',
      MAILROOM_MASTER_KEY: randomBytes(32).toString('base64'),
      MAILROOM_DATA_DIR: dataDir,
      MAILROOM_DATABASE_URL: database
        ? withDatabase(database.server, database.name)
        : `sqlite://${join(dataDir, 'mailroom.sqlite')}`,
      MAILROOM_INBOUND_HOST: '127.0.0.1',
      MAILROOM_INBOUND_PORT: String(await freePort('127.0.0.1')),
      MAILROOM_METRICS_PORT: '0',
      MAILROOM_DNS_SERVERS: options.dns,
    };
    try {
      return await MailroomMx.spawn(env, database, options.domain);
    } catch (err) {
      if (database) await dropDatabase(database.server, database.name).catch(() => undefined);
      throw err;
    }
  }

  private static async spawn(
    env: Record<string, string>,
    database: { server: string; name: string } | null,
    domain: string,
  ): Promise<MailroomMx> {
    await seed(env, domain);
    // Nothing of the caller's MAILROOM_* environment leaks in (a Redis URL, a log level...).
    const baseEnv = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('MAILROOM_')));
    const child = spawn(process.execPath, [BIN, 'inbound'], {
      env: { ...baseEnv, ...env, MAILROOM_FROM_SOURCE: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const errors: string[] = [];
    const keep = (line: string) => {
      if (errors.length < 20) errors.push(line.slice(0, 500));
    };
    createInterface({ input: child.stderr! }).on('line', keep);
    let listening: { port: number; harakaPid: number } | null = null;
    const ready = new Promise<{ port: number; harakaPid: number }>((resolve, reject) => {
      createInterface({ input: child.stdout! }).on('line', (line) => {
        if (listening) {
          // Past start-up only errors are kept (no JSON parsing per message accepted).
          if (line.includes('"level":50') || line.includes('"level":60')) keep(line);
          return;
        }
        let entry: { msg?: string; level?: number; port?: number; harakaPid?: number };
        try {
          entry = JSON.parse(line) as typeof entry;
        } catch {
          return keep(line);
        }
        if (entry.msg === 'inbound MX listening' && entry.port && entry.harakaPid) {
          listening = { port: entry.port, harakaPid: entry.harakaPid };
          resolve(listening);
        } else if ((entry.level ?? 0) >= 50) keep(line);
      });
      child.once('exit', (code, signal) =>
        reject(new Error(`mailroom inbound exited before listening (${code ?? signal}): ${errors.join('\n')}`)),
      );
    });
    try {
      const { port, harakaPid } = await withTimeout(ready, 60_000, 'mailroom inbound to listen');
      return new MailroomMx(child, errors, port, harakaPid, env, database);
    } catch (err) {
      await stopGroup(child);
      throw err;
    }
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** CPU seconds so far: the Mailroom process with its Haraka child, and Haraka alone. */
  cpu(): { total: number; parts: Record<string, number> } {
    const total = treeCpuSeconds(this.pid);
    const haraka = treeCpuSeconds(this.harakaPid);
    return { total, parts: { Mailroom: total - haraka, Haraka: haraka } };
  }

  /** Nothing runs after the 250: the message was stored before it. */
  async settle(): Promise<void> {}

  /**
   * Received emails in the database, and how many of them have their raw message readable (a
   * record of the message spool, read through the spool's own reader; call after stop()).
   */
  async stored(): Promise<{ rows: number; raw: number }> {
    const runtime = await createRuntime(loadConfig(this.env), { logger: createLogger('silent') });
    const spool = new SegmentSpool(join(runtime.config.dataDir, 'spool'));
    try {
      const rows = (await runtime.db.knex('received_emails').select('raw_blob')) as Array<{ raw_blob: string | null }>;
      let raw = 0;
      for (const row of rows) {
        const record = row.raw_blob ? parseSpoolRef(row.raw_blob) : null;
        if (record && (await spool.read(record))) raw++;
      }
      return { rows: rows.length, raw };
    } finally {
      await spool.close();
      await runtime.close();
    }
  }

  get running(): boolean {
    return alive(this.child);
  }

  async stop(): Promise<void> {
    await stopGroup(this.child);
  }

  /** Drops the MariaDB database (SQLite's file goes with the directory). */
  async dropDatabase(): Promise<void> {
    if (!this.database) return;
    await dropDatabase(this.database.server, this.database.name);
  }
}

/** A team on the unlimited plan with `domain` as a receiving domain (enabled, MX verified). */
async function seed(env: Record<string, string>, domain: string): Promise<void> {
  const runtime = await createRuntime(loadConfig(env), { logger: createLogger('silent') });
  try {
    const team = await runtime.services.teams.create({ name: 'Inbound bench', planCode: 'unlimited' });
    const view = await runtime.services.domains.create(
      team,
      createDomainSchema.parse({
        name: domain,
        region: 'us-east-1',
        capabilities: { sending: 'enabled', receiving: 'enabled' },
        confirm_replace_mx: true,
      }),
    );
    await runtime.db
      .knex('domains')
      .where({ id: view.domain.id })
      .update({ status: 'verified', record_statuses: JSON.stringify({ receiving_mx: 'verified' }) });
  } finally {
    await runtime.close();
  }
}

function withDatabase(server: string, name: string): string {
  const url = new URL(server);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function dropDatabase(server: string, name: string): Promise<void> {
  const url = new URL(server);
  url.pathname = '/';
  const admin = await mysql.createConnection({ uri: url.toString() });
  try {
    await admin.query(`DROP DATABASE IF EXISTS \`${name}\``);
  } finally {
    await admin.end();
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms))),
  ]).finally(() => clearTimeout(timer));
}
