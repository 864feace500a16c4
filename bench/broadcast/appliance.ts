import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { createRuntime, type Runtime } from '../../app/runtime.js';
import { loadConfig } from '../../lib/config/load-config.js';
import { createLogger } from '../../lib/logger.js';
import { request } from '../../test/helpers/http.js';
import { seedBenchTeam, startMailroomProcess } from '../mailroom-process.js';
import { startMtaProcesses, type MtaProcesses } from '../mta-processes.js';
import { insertContacts } from './contacts.js';
import { ErrorLog } from './error-log.js';
import { startSchedulerProcess, type SchedulerProcess } from './scheduler-process.js';

export type ApplianceSetup = {
  /** Names the database, directory and Redis keys. */
  label: string;
  /** A MariaDB/MySQL server (mysql://root@127.0.0.1:3306), or null for the embedded SQLite default. */
  server: string | null;
  /** Redis for the appliance's processes (with a server), or null: the in-process store. */
  redis: string | null;
  /** Sections of the configuration file (mta: the sink's port, the egress address...). */
  config: Record<string, Record<string, unknown>>;
  /** MAILROOM_DNS_SERVERS (a loopback test DNS server), when the MTA runs. */
  dns?: string;
};

/** The broadcast every run sends: merge variables in subject and bodies, about 3 KB of HTML. */
const PARAGRAPH =
  'This month we shipped faster sends, a new dashboard and better reports. Read on for the details, ' +
  'the roadmap for next quarter and a few tips from customers who run their newsletters with us.';
export const BROADCAST_BODY = {
  subject: 'News for {{{FIRST_NAME}}}',
  html:
    '<html><body><h1>Hello {{{FIRST_NAME}}}</h1><p>Greetings from {{{city}}}.</p>' +
    Array.from({ length: 12 }, (_, i) => `<p>${i + 1}. ${PARAGRAPH}</p>`).join('') +
    '</body></html>',
  text:
    'Hello {{{FIRST_NAME}}}\n\nGreetings from {{{city}}}.\n\n' +
    Array.from({ length: 12 }, (_, i) => `${i + 1}. ${PARAGRAPH}`).join('\n\n'),
};

/**
 * One appliance for one part of the benchmark, as production runs it: its own database (a
 * SQLite file in a temporary directory, or a database of its own on the MariaDB server, dropped
 * at the end), `mailroom api` as a process, `mailroom scheduler` and `mailroom mta` processes
 * when asked. The team (seedBenchTeam: bench.test verified, tier 2, unlimited plan, a full-access
 * key) gets a postal address and a `city` property through the API; its contacts are written in
 * bulk (contacts.ts). The benchmark keeps a runtime of its own for reads and the set-up writes.
 */
export class BroadcastAppliance {
  private scheduler: SchedulerProcess | null = null;
  private mta: MtaProcesses | null = null;

  private constructor(
    readonly env: Record<string, string>,
    readonly runtime: Runtime,
    readonly api: { url: string; pid: number; stop(): Promise<void> },
    readonly token: string,
    readonly teamId: string,
    /** Error-level log lines of the api and scheduler processes (the mta's go to stderr). */
    readonly errors: ErrorLog,
    private readonly setup: ApplianceSetup,
    private readonly dir: string,
    private readonly database: string | null,
  ) {}

  static async start(setup: ApplianceSetup): Promise<BroadcastAppliance> {
    const dir = mkdtempSync(join(tmpdir(), `mailroom-bench-broadcast-${setup.label}-`));
    const database = setup.server ? `mailroom_bench_broadcast_${process.pid}_${setup.label}` : null;
    const configFile = join(dir, 'mailroom.json');
    writeFileSync(configFile, JSON.stringify(setup.config));
    const env: Record<string, string> = {
      MAILROOM_CONFIG: configFile,
      MAILROOM_ENV: 'test',
      MAILROOM_DATA_DIR: join(dir, 'data'),
      MAILROOM_DATABASE_URL: database
        ? `${setup.server!.replace(/\/+$/, '')}/${database}`
        : `sqlite://${join(dir, 'mailroom.sqlite')}`,
      MAILROOM_API_HOST: '127.0.0.1',
      MAILROOM_API_PORT: '0',
      MAILROOM_SUBMISSION_PORT: '0',
      MAILROOM_INBOUND_PORT: '0',
      MAILROOM_RATE_LIMIT_PER_SECOND: '100000',
      ...(setup.redis
        ? {
            MAILROOM_REDIS_URL: setup.redis,
            MAILROOM_REDIS_KEY_PREFIX: `mailroom-bench-broadcast:${process.pid}:${setup.label}:`,
          }
        : {}),
      ...(setup.dns ? { MAILROOM_DNS_SERVERS: setup.dns } : {}),
    };
    const token = await seedBenchTeam(env, 'full_access');
    const runtime = await createRuntime(loadConfig(env), { logger: createLogger('silent') });
    const { knex } = runtime.db;
    const team = (await knex('teams').first('id')) as { id: string };
    // The domain was marked verified without DNS: no re-check by the scheduler's verify-domains job.
    await knex('domains').where({ team_id: team.id }).update({ next_check_at: null });
    const errors = new ErrorLog();
    const api = await startApi(env, errors).catch(async (err: unknown) => {
      await runtime.close();
      throw err;
    });
    return new BroadcastAppliance(env, runtime, api, token, team.id, errors, setup, dir, database);
  }

  /** A request to the appliance's API with the team's key; throws unless the status is `expected`. */
  async call<T = any>(method: string, path: string, body?: unknown, expected = [200, 201]): Promise<T> {
    const response = await request<T>(this.api.url, path, { method, token: this.token, body });
    if (!expected.includes(response.status))
      throw new Error(`${method} ${path} answered ${response.status}: ${response.text}`);
    return response.body;
  }

  /**
   * The audience: a postal address (the gate), the `city` property with a fallback, `count`
   * contacts over `domains`, and a segment matching all of them. Returns the segment's id.
   */
  async audience(count: number, domains: string[]): Promise<string> {
    await this.call('PATCH', '/team', {
      sender_name: 'Bench',
      postal_address: { line1: '1 Main Street', city: 'Springfield', postal_code: '62701', country: 'US' },
    });
    const city = await this.call<{ id: string }>('POST', '/contact-properties', {
      key: 'city',
      type: 'string',
      fallback_value: 'Nowhere',
    });
    await insertContacts(this.runtime.db.knex, this.teamId, count, { domains, cityPropertyId: city.id });
    const segment = await this.call<{ id: string }>('POST', '/segments', {
      name: 'Everyone',
      filter: { all: [{ field: 'email', op: 'contains', value: '@' }] },
    });
    return segment.id;
  }

  /** A draft broadcast to the segment. */
  async draft(segmentId: string): Promise<string> {
    const created = await this.call<{ id: string }>('POST', '/broadcasts', {
      name: 'Bench broadcast',
      segment_id: segmentId,
      from: 'Bench News <news@bench.test>',
      ...BROADCAST_BODY,
    });
    return created.id;
  }

  /** POST /broadcasts/:id/send; resolves with performance.now() at its 200. */
  async send(id: string): Promise<number> {
    await this.call('POST', `/broadcasts/${id}/send`, {}, [200]);
    return performance.now();
  }

  async status(id: string): Promise<string> {
    const row = (await this.runtime.db.knex('broadcasts').where({ id }).first('status')) as { status: string };
    return row.status;
  }

  /** Emails the fan-out has created for the broadcast so far. */
  async emailsOf(id: string): Promise<number> {
    const [row] = (await this.runtime.db.knex('emails').where({ broadcast_id: id }).count({ n: '*' })) as Array<{
      n: number | string;
    }>;
    return Number(row?.n ?? 0);
  }

  async startScheduler(): Promise<SchedulerProcess> {
    this.scheduler = await startSchedulerProcess(this.env, (line) => this.errors.add('scheduler', line));
    return this.scheduler;
  }

  /** One `mailroom mta` process, with production's node options (bench/mta-processes.ts). */
  async startMta(): Promise<MtaProcesses> {
    this.mta = await startMtaProcesses(1, this.env);
    return this.mta;
  }

  /** Stops every process, drops the database and the Redis keys, removes the directory. */
  async close(): Promise<void> {
    const quietly = (what: string) => (err: unknown) => console.error(`clean-up (${what}): ${(err as Error).message}`);
    await this.mta?.stop().catch(quietly('mta'));
    await this.scheduler?.stop().catch(quietly('scheduler'));
    await this.api.stop().catch(quietly('api'));
    if (this.database)
      await this.runtime.db.knex.raw(`DROP DATABASE IF EXISTS \`${this.database}\``).catch(quietly('database'));
    await this.runtime.close().catch(quietly('runtime'));
    if (this.setup.redis)
      await dropRedisKeys(this.setup.redis, this.env.MAILROOM_REDIS_KEY_PREFIX!).catch(quietly('redis'));
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * `mailroom api` as a process (as startMailroomProcess starts it: BENCH_NODE_ARGS, resolves once
 * it listens), its error-level lines counted in `errors` rather than printed.
 */
function startApi(env: Record<string, string>, errors: ErrorLog) {
  return startMailroomProcess(env, { onError: (line) => errors.add('api', line) });
}

async function dropRedisKeys(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      if (keys.length) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
