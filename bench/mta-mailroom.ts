import { createPrivateKey } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { createDomainSchema } from '../core/sending/domains/domain.schemas.js';
import { sendEmailSchema } from '../core/sending/emails/email.schemas.js';
import type { Email } from '../core/sending/emails/email.types.js';
import { createRuntime, type Runtime } from '../app/runtime.js';
import { loadConfig } from '../lib/config/load-config.js';
import { createLogger } from '../lib/logger.js';
import { returnPath } from '../mta/delivery/message-preparer.js';
import { startDeliveryWorker } from '../mta/queue/delivery-worker.js';
import { cpuSeconds } from './cpu-ticks.js';
import { startMtaProcesses } from './mta-processes.js';
import type { BenchMessage } from './postfix-relay.js';

export type MailroomSetup = {
  server: string;
  redis: string;
  /** host:port of the DNS server that holds the sink domain's MX. */
  dns: string;
  sink: { host: string; port: number; received: number; waitFor(count: number): Promise<void> };
  egress: string;
  label: string;
  /** mta settings of this run only, over BENCH_MTA_CONFIG (the shaping peer run turns shaping off). */
  mta?: Record<string, unknown>;
};

/** CPU seconds spent in the timed run by Mailroom's processes, MariaDB (all its clients) and the sink. */
export type CpuSplit = { mta: number; database: number; sink: number };

export type MailroomResult = { seconds: number; signedKeyBits: number; cpu: CpuSplit };

const SENDERS = 32;

/**
 * One Mailroom appliance for one measurement: its own MariaDB database and data directory, a
 * verified domain (bench.test, RSA-2048 DKIM key active), Redis, the mta section pointing at
 * the sink (egress address, port). `accept` queues messages through the send service (not
 * timed); `deliver` starts the delivery worker in this process and times it until every
 * delivery is settled `delivered`.
 */
export class MailroomBench {
  private constructor(
    readonly runtime: Runtime,
    private readonly env: Record<string, string>,
    private readonly setup: MailroomSetup,
    private readonly database: string,
    private readonly dataDir: string,
    private readonly token: string,
  ) {}

  static async start(setup: MailroomSetup): Promise<MailroomBench> {
    const database = `mailroom_bench_mta_${process.pid}_${setup.label}`;
    const dataDir = mkdtempSync(join(tmpdir(), 'mailroom-bench-mta-'));
    const file = join(dataDir, 'mailroom.json');
    // Everything else is the default configuration (concurrency, per-destination connections,
    // lease, poll), unless BENCH_MTA_CONFIG overrides some of the mta section for an experiment.
    writeFileSync(
      file,
      JSON.stringify({
        mta: {
          ...benchMtaOverrides(),
          ...setup.mta,
          hostname: 'mta.bench.test',
          port: setup.sink.port,
          regions: { 'us-east-1': { ips: [{ address: setup.egress, helo: 'out.bench.test' }] } },
        },
      }),
    );
    const env: Record<string, string> = {
      MAILROOM_CONFIG: file,
      MAILROOM_ENV: 'test',
      MAILROOM_DATA_DIR: dataDir,
      MAILROOM_DATABASE_URL: `${setup.server}/${database}`,
      MAILROOM_REDIS_URL: setup.redis,
      MAILROOM_REDIS_KEY_PREFIX: `mailroom-bench-mta:${process.pid}:${setup.label}:`,
      MAILROOM_DNS_SERVERS: setup.dns,
    };
    const config = loadConfig(env);
    const runtime = await createRuntime(config, {
      logger: createLogger(process.env.BENCH_LOG_LEVEL ?? 'warn', { fd: 2 }),
    });
    const team = await runtime.services.teams.create({ name: 'Bench', planCode: 'unlimited' });
    await runtime.services.teams.setTier(team.id, 2);
    const view = await runtime.services.domains.create(team, createDomainSchema.parse({ name: 'bench.test' }));
    await runtime.db.knex('domains').where({ id: view.domain.id }).update({ status: 'verified' });
    const { token } = await runtime.services.apiKeys.create(team.id, { name: 'bench', permission: 'sending_access' });
    return new MailroomBench(runtime, env, setup, database, dataDir, token);
  }

  /** Accepts `total` messages to distinct recipients at sink.test (durably queued); returns them as Postfix gets them. */
  async accept(total: number, text: string, prefix = 'r'): Promise<BenchMessage[]> {
    const { services } = this.runtime;
    const auth = await services.apiKeys.authenticate(this.token);
    const emails: Email[] = new Array(total);
    let next = 0;
    const sender = async () => {
      while (next < total) {
        const i = next++;
        const input = sendEmailSchema.parse({
          from: 'Bench <bench@bench.test>',
          to: [`${prefix}${i}@sink.test`],
          subject: `MTA benchmark message ${prefix}${i}`,
          text,
        });
        emails[i] = await services.emailAcceptance.accept(auth, input);
      }
    };
    await Promise.all(Array.from({ length: SENDERS }, sender));
    const domain = (await services.domains.repository.findById(emails[0]!.domainId))!;
    return Promise.all(
      emails.map(async (email) => ({
        from: returnPath(email, domain),
        to: email.to[0]!,
        mime: (await services.emails.mime(email))!,
      })),
    );
  }

  /**
   * Accepts and delivers `count` messages, untimed, before the measured run: the code the
   * worker runs is then compiled and optimized, as in an mta process that has been running a
   * while (Postfix's programs are native code and need no such warm-up).
   */
  async warmUp(count: number, text: string): Promise<void> {
    if (count <= 0) return;
    await this.accept(count, text, 'w');
    await this.deliver(count, 0);
  }

  /**
   * Starts the delivery worker and times it until `total` more deliveries are settled
   * delivered: in this process (`processes` 0), or as that many `mailroom mta` processes.
   */
  async deliver(total: number, processes = 0, timeoutMs = 600_000): Promise<MailroomResult> {
    const { knex } = this.runtime.db;
    this.baseline = await this.counts();
    const keys = await this.runtime.services.domains.signingKeys((await knex('domains').first('id')).id);
    const before = this.setup.sink.received;
    const database = cpuSeconds(['mariadbd', 'mysqld']);
    const sink = cpuSeconds(['smtp-sink']);
    const worker = processes > 0 ? await startMtaProcesses(processes, this.env) : inProcess(this.runtime);
    const mta = worker.cpuSeconds();
    const started = worker.startedAt;
    try {
      // The sink's counter says when the last message arrived; only then ask the database.
      await withTimeout(this.setup.sink.waitFor(before + total), timeoutMs, 'the sink to receive every message');
      for (;;) {
        const [row] = (await knex('deliveries').where({ state: 'delivered' }).count({ n: '*' })) as Array<{
          n: number | string;
        }>;
        if (Number(row?.n) >= this.baseline.delivered + total) break;
        if (performance.now() - started > timeoutMs) throw new Error('timed out waiting for every delivery to settle');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      const seconds = (performance.now() - started) / 1000;
      const cpu = {
        mta: worker.cpuSeconds() - mta,
        database: cpuSeconds(['mariadbd', 'mysqld']) - database,
        sink: cpuSeconds(['smtp-sink']) - sink,
      };
      return { seconds, signedKeyBits: keyBits(keys), cpu };
    } finally {
      await worker.stop();
    }
  }

  /** Checks after the last run: its `total` deliveries delivered once each (one attempt each), none in another state. */
  async verify(total: number): Promise<string[]> {
    const problems: string[] = [];
    const now = await this.counts();
    if (now.delivered - this.baseline.delivered !== total || now.other !== 0)
      problems.push(
        `deliveries by state: ${JSON.stringify(now.states)} (${this.baseline.delivered} delivered before the run)`,
      );
    if (now.attempts - this.baseline.attempts !== total)
      problems.push(`${now.attempts - this.baseline.attempts} attempts for ${total} deliveries`);
    return problems;
  }

  /** Delivered deliveries and attempts so far (a run is checked by what it added). */
  private baseline = { delivered: 0, attempts: 0 };

  private async counts(): Promise<{
    delivered: number;
    other: number;
    attempts: number;
    states: Array<{ state: string; n: number | string }>;
  }> {
    const { knex } = this.runtime.db;
    const states = (await knex('deliveries').select('state').count({ n: '*' }).groupBy('state')) as Array<{
      state: string;
      n: number | string;
    }>;
    const [attempts] = (await knex('delivery_attempts').count({ n: '*' })) as Array<{ n: number | string }>;
    const delivered = Number(states.find((s) => s.state === 'delivered')?.n ?? 0);
    const all = states.reduce((sum, s) => sum + Number(s.n), 0);
    return { delivered, other: all - delivered, attempts: Number(attempts?.n ?? 0), states };
  }

  async close(): Promise<void> {
    await this.runtime.close();
    const admin = await mysql.createConnection({ uri: `${this.setup.server}/` });
    await admin.query(`DROP DATABASE IF EXISTS \`${this.database}\``);
    await admin.end();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

/** BENCH_MTA_CONFIG: JSON merged into the mta section, e.g. '{"perDestinationConcurrency":20}'. */
export function benchMtaOverrides(): Record<string, unknown> {
  const raw = process.env.BENCH_MTA_CONFIG;
  if (!raw) return {};
  const parsed: unknown = JSON.parse(raw);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new Error('BENCH_MTA_CONFIG must be a JSON object (keys of the mta section)');
  return parsed as Record<string, unknown>;
}

/** The worker in this process (its CPU: this process's, which the benchmark's own polling adds little to). */
function inProcess(runtime: Runtime): { startedAt: number; cpuSeconds(): number; stop(): Promise<void> } {
  const startedAt = performance.now();
  const worker = startDeliveryWorker(runtime);
  const cpuSeconds = () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1e6;
  };
  return { startedAt, cpuSeconds, stop: () => worker.stop() };
}

function keyBits(keys: Array<{ algorithm: string; privateKeyPem: string }>): number {
  const rsa = keys.find((key) => key.algorithm === 'rsa');
  if (!rsa) return 0;
  return (createPrivateKey(rsa.privateKeyPem).asymmetricKeyDetails?.modulusLength as number | undefined) ?? 0;
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms))),
  ]).finally(() => clearTimeout(timer));
}
