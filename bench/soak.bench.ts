/**
 * Soak benchmark: SOAK_MINUTES (20) of mixed, moderate load against a real appliance running as
 * production runs it (systemd/: `mailroom api`, `mailroom mta`, `mailroom scheduler`, three
 * processes) on MariaDB and Redis:
 *   - sends through POST /emails (to sink.test, whose MX is a loopback SMTP sink on 127.0.0.10),
 *   - the MTA delivering them to that sink (from egress address 127.0.0.2),
 *   - their webhooks (email.sent, email.delivered...) posted by the scheduler's webhook worker to
 *     a loopback HTTP receiver (webhooks.allowHttp + webhooks.allowAddresses [127.0.0.1]),
 *   - list and get calls: GET /emails, /emails/:id, /domains, /domains/:id, /webhooks, /logs.
 * Every minute one line: requests/s answered, and for the appliance processes (summed; per
 * process in the summary) RSS (VmRSS from /proc/<pid>/status), V8 heap used, open file
 * descriptors (/proc/<pid>/fd), queue depth (emails not yet handed to the MTA + deliveries not
 * yet final, and webhook deliveries not yet settled, from the database) and event-loop delay p99
 * (the worst of the processes). The appliance exposes neither heap nor loop delay (no /metrics
 * yet), so both come from a small probe this file loads into each appliance process (node
 * --import of a data: URL): it answers on an extra pipe (fd 3)
 * with process.memoryUsage() and a perf_hooks.monitorEventLoopDelay histogram reset each minute;
 * production never loads it. All traffic stays on loopback.
 *
 *   npm run bench:soak                              (MariaDB 127.0.0.1:3306 root, Redis 127.0.0.1:6379)
 *   SOAK_MINUTES=0.5 npm run bench:soak             (quick check; fractions allowed)
 * Env: SOAK_MINUTES (20), SOAK_SEND_RATE (20 sends/s), SOAK_READ_RATE (20 reads/s),
 *   SOAK_CONCURRENCY (4 requests in flight per stream at most), SOAK_PROCESSES (split: api, mta
 *   and scheduler processes; start: `mailroom start`, everything in one process),
 *   SOAK_API_WORKERS (1; more: cluster workers, whose RSS/fds count but heap/loop do not),
 *   SOAK_DRAIN_SECONDS (60: after the load, wait this long at most for the queue to empty),
 *   SOAK_MINUTE_MS (60000: length of a "minute", to debug), BENCH_MYSQL_URL, BENCH_REDIS_URL.
 * Database mailroom_soak_<pid> and Redis keys mailroom-soak:<pid>:* are removed at the end (also
 * on SIGINT/SIGTERM, which stop the appliance's process groups first).
 * Goal: after the first 2 minutes RSS and open fds flat (minute 2 vs the last within 10%), and
 * no error-level (pino level >= 50) log line from the appliance.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import mysql from 'mysql2/promise';
import { MTA_NODE_OPTIONS } from './mta-node-options.js';
import { seedBenchTeam } from './mailroom-process.js';
import { TestDnsServer } from '../test/helpers/dns-server.js';
import { SmtpSink } from '../test/helpers/smtp-sink.js';

const MINUTES = Number(process.env.SOAK_MINUTES ?? 20);
const SEND_RATE = Number(process.env.SOAK_SEND_RATE ?? 20);
const READ_RATE = Number(process.env.SOAK_READ_RATE ?? 20);
const CONCURRENCY = Number(process.env.SOAK_CONCURRENCY ?? 4);
const MODE = process.env.SOAK_PROCESSES === 'start' ? 'start' : 'split';
const API_WORKERS = Number(process.env.SOAK_API_WORKERS ?? 1);
const DRAIN_SECONDS = Number(process.env.SOAK_DRAIN_SECONDS ?? 60);
const MINUTE_MS = Number(process.env.SOAK_MINUTE_MS ?? 60_000);
const SERVER = process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306';
const REDIS = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const BIN = fileURLToPath(new URL('../bin/mailroom.js', import.meta.url));
if (!(MINUTES > 0) || !(SEND_RATE > 0) || !(READ_RATE > 0) || !(CONCURRENCY >= 1))
  throw new Error('SOAK_MINUTES, SOAK_SEND_RATE, SOAK_READ_RATE must be > 0 and SOAK_CONCURRENCY >= 1');

/**
 * Loaded into each appliance process (not into cluster workers: NODE_UNIQUE_ID). Each line the
 * bench writes to fd 3 gets one JSON line back: memory now, and the event-loop delay histogram
 * since the previous line (then reset). The socket is unref'd: it never keeps the process alive.
 * Node 20's histogram records the whole interval between its timer's ticks, the 10 ms resolution
 * included (an idle process shows p99 ~11 ms), so the resolution is subtracted: what remains is
 * the delay.
 */
const PROBE_SOURCE = `
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Socket } from 'node:net';
import { createInterface } from 'node:readline';
if (process.env.SOAK_PROBE === '1' && !process.env.NODE_UNIQUE_ID) {
  const RESOLUTION_MS = 10;
  const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  delay.enable();
  const channel = new Socket({ fd: 3, readable: true, writable: true });
  channel.on('error', () => {});
  channel.unref();
  createInterface({ input: channel }).on('line', () => {
    const m = process.memoryUsage();
    const ms = (ns) => Math.max(0, ns / 1e6 - RESOLUTION_MS);
    channel.write(JSON.stringify({ heapUsed: m.heapUsed, loopP99Ms: ms(delay.percentile(99)), loopMaxMs: ms(delay.max) }) + '\\n');
    delay.reset();
  });
}
`;
const PROBE_URL = `data:text/javascript,${encodeURIComponent(PROBE_SOURCE)}`;

type Probe = { heapUsed: number; loopP99Ms: number; loopMaxMs: number };
type Part = {
  name: string;
  child: ChildProcess;
  errors: string[];
  errorsByMsg: Map<string, number>;
  warnings: number;
  /** Output that is not a pino line (node warnings, stack traces on stderr). */
  other: string[];
  ask(): Promise<Probe | undefined>;
};

const parts: Part[] = [];
const database = `mailroom_soak_${process.pid}`;
const redisPrefix = `mailroom-soak:${process.pid}:`;
const dataDir = mkdtempSync(join(tmpdir(), 'mailroom-soak-'));
let phase: 'run' | 'shutdown' = 'run';
let shutdownErrors = 0;

/** `mailroom <command>` with the probe, in a process group of its own; resolves once `readyMsg` is logged. */
function spawnPart(
  name: string,
  command: string,
  env: Record<string, string>,
  readyMsg: string,
  nodeArgs: readonly string[] = [],
): Promise<{ part: Part; line: Record<string, unknown> }> {
  const child = spawn(process.execPath, [...nodeArgs, '--import', PROBE_URL, BIN, command], {
    env: {
      ...process.env,
      ...env,
      NODE_ENV: 'production',
      MAILROOM_LOG_LEVEL: 'info',
      SOAK_PROBE: '1',
      MAILROOM_FROM_SOURCE: '1',
    },
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    detached: true,
  });
  const channel = child.stdio[3] as Socket;
  const answers: Array<(probe: Probe | undefined) => void> = [];
  createInterface({ input: channel }).on('line', (line) => answers.shift()?.(JSON.parse(line) as Probe));
  channel.on('error', () => {});
  const part: Part = {
    name,
    child,
    errors: [],
    errorsByMsg: new Map(),
    warnings: 0,
    other: [],
    ask: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve(undefined);
        const timer = setTimeout(() => {
          const index = answers.indexOf(settle);
          if (index >= 0) answers.splice(index, 1);
          resolve(undefined);
        }, 2000);
        const settle = (probe: Probe | undefined) => {
          clearTimeout(timer);
          resolve(probe);
        };
        answers.push(settle);
        channel.write('sample\n');
      }),
  };
  parts.push(part);
  const other = (line: string) => {
    part.other.push(line.slice(0, 400));
    process.stderr.write(`[${name}] ${line}\n`);
  };
  createInterface({ input: child.stderr! }).on('line', other);
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        return other(line);
      }
      const level = Number(entry.level ?? 0);
      if (level >= 50) {
        if (phase === 'shutdown') shutdownErrors++;
        const err = entry.err as { message?: string; code?: string } | undefined;
        const brief = `${String(entry.msg)}${err ? `: ${err.code ? `${err.code} ` : ''}${String(err.message).slice(-160)}` : ''}`;
        part.errors.push(brief);
        part.errorsByMsg.set(String(entry.msg), (part.errorsByMsg.get(String(entry.msg)) ?? 0) + 1);
        process.stderr.write(`[${name}] level ${level} at ${new Date(Number(entry.time)).toISOString()}: ${brief}\n`);
      } else if (level >= 40) part.warnings++;
      if (entry.msg === readyMsg) resolve({ part, line: entry });
    });
    child.once('exit', (code, signal) => {
      if (phase === 'run') process.stderr.write(`[${name}] exited (${code ?? signal})\n`);
      reject(new Error(`mailroom ${command} exited before "${readyMsg}" (${code ?? signal})`));
    });
  });
}

/** SIGTERM to each process group, SIGKILL after 15 s. */
async function stopParts(): Promise<void> {
  phase = 'shutdown';
  await Promise.all(
    parts.map(
      ({ child }) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          const kill = (signal: NodeJS.Signals) => {
            try {
              process.kill(-child.pid!, signal);
            } catch {
              /* already gone */
            }
          };
          const timer = setTimeout(() => kill('SIGKILL'), 15_000);
          child.once('exit', () => {
            clearTimeout(timer);
            kill('SIGKILL'); // cluster workers left behind, if any
            resolve();
          });
          kill('SIGTERM');
        }),
    ),
  );
}

// Loopback stand-ins for the outside world: DNS (sink.test MX), the recipients' SMTP server, the webhook receiver.
const dns = await TestDnsServer.start();
const sink = await SmtpSink.start('127.0.0.10', 0);
dns.add(
  { type: 'MX', name: 'sink.test', exchange: 'mx.sink.test', priority: 10 },
  { type: 'A', name: 'mx.sink.test', address: '127.0.0.10' },
);
let delivered = 0;
const countDelivered = () => {
  delivered += sink.messages.length;
  sink.messages.length = 0; // a soak only counts them
  return delivered;
};
setInterval(countDelivered, 1000).unref();
let webhooksReceived = 0;
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    webhooksReceived++;
    res.writeHead(204).end();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const receiverPort = (receiver.address() as AddressInfo).port;

const configFile = join(dataDir, 'mailroom.json');
writeFileSync(
  configFile,
  JSON.stringify({
    mta: {
      hostname: 'mta.mailroom.test',
      port: sink.port,
      regions: { 'us-east-1': { ips: [{ address: '127.0.0.2', helo: 'out.mailroom.test' }] } },
    },
    webhooks: { allowHttp: true, allowAddresses: ['127.0.0.1'] },
  }),
);
const env: Record<string, string> = {
  MAILROOM_CONFIG: configFile,
  MAILROOM_ENV: 'test',
  MAILROOM_DATA_DIR: dataDir,
  MAILROOM_DATABASE_URL: `${SERVER}/${database}`,
  MAILROOM_REDIS_URL: REDIS,
  MAILROOM_REDIS_KEY_PREFIX: redisPrefix,
  MAILROOM_API_HOST: '127.0.0.1',
  MAILROOM_API_PORT: '0',
  MAILROOM_API_WORKERS: String(API_WORKERS),
  MAILROOM_SUBMISSION_HOST: '127.0.0.1',
  MAILROOM_SUBMISSION_PORT: '0',
  MAILROOM_INBOUND_PORT: '0',
  MAILROOM_METRICS_PORT: '0',
  MAILROOM_SUBMISSION_TLS_PORT: '0',
  MAILROOM_DNS_SERVERS: dns.address,
  MAILROOM_RATE_LIMIT_PER_SECOND: '100000',
};

const admin = await mysql.createConnection(SERVER);
let cleaned = false;
async function cleanup(): Promise<void> {
  if (cleaned) return;
  cleaned = true;
  await stopParts();
  await admin
    .query(`DROP DATABASE IF EXISTS \`${database}\``)
    .catch((err: Error) => console.error(`drop database: ${err.message}`));
  await admin.end().catch(() => {});
  const redis = new Redis(REDIS, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${redisPrefix}*`, 'COUNT', 1000);
      if (keys.length) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } catch (err) {
    console.error(`redis cleanup: ${(err as Error).message}`);
  } finally {
    redis.disconnect();
  }
  await sink.close();
  await dns.close();
  receiver.close();
  rmSync(dataDir, { recursive: true, force: true });
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`\n${signal}: stopping the appliance and cleaning up`);
    cleanup().finally(() => process.exit(130));
  });
}

try {
  await admin.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
  await main();
} catch (err) {
  console.error(err);
  process.exitCode = 1;
} finally {
  await cleanup();
}
process.exit();

async function main(): Promise<void> {
  const token = await seedBenchTeam(env, 'full_access');
  let url: string;
  if (MODE === 'start') {
    url = String((await spawnPart('start', 'start', env, 'API listening')).line.url);
  } else {
    const [api] = await Promise.all([
      spawnPart('api', 'api', env, 'API listening'),
      spawnPart('mta', 'mta', env, 'mta worker started', MTA_NODE_OPTIONS),
      spawnPart('scheduler', 'scheduler', env, 'webhook worker started'),
    ]);
    url = String(api.line.url);
  }

  // Load: fetch (undici, keep-alive) from this process.
  let answered = 0;
  let failures = 0;
  const failureSamples: string[] = [];
  const failed = (what: string) => {
    failures++;
    if (failureSamples.length < 5) failureSamples.push(what);
  };
  async function call(method: string, path: string, body?: unknown): Promise<any> {
    try {
      const response = await fetch(`${url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'user-agent': 'soak-bench' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const parsed = await response.json().catch(() => undefined);
      answered++;
      if (response.status >= 400)
        failed(`${method} ${path}: ${response.status} ${JSON.stringify(parsed).slice(0, 200)}`);
      return parsed;
    } catch (err) {
      failed(`${method} ${path}: ${(err as Error).message}`);
      return undefined;
    }
  }

  const webhook = await call('POST', '/webhooks', {
    endpoint: `http://127.0.0.1:${receiverPort}/hook`,
    events: ['email.sent', 'email.delivered', 'email.delivery_delayed', 'email.bounced', 'email.failed'],
  });
  if (!webhook?.id) throw new Error(`webhook not registered: ${JSON.stringify(webhook)}`);
  const domains = await call('GET', '/domains');
  const domainId: string | undefined = domains?.data?.[0]?.id;

  const recentIds: string[] = [];
  let sent = 0;
  let accepted = 0;
  let stopping = false;
  let skipped = 0;
  /** Runs `work` `rate` times a second, evenly spread, at most CONCURRENCY at once (a tick finding them all busy is skipped). */
  const every = (rate: number, work: () => Promise<void>) =>
    (async () => {
      const gap = 1000 / rate;
      let next = performance.now();
      const inFlight = new Set<Promise<void>>();
      while (!stopping) {
        if (inFlight.size < CONCURRENCY) {
          const job: Promise<void> = work().finally(() => inFlight.delete(job));
          inFlight.add(job);
        } else skipped++;
        next += gap;
        const wait = next - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      }
      await Promise.all(inFlight);
    })();
  const randomId = () => recentIds[Math.floor(Math.random() * recentIds.length)];
  const reads: Array<() => Promise<unknown>> = [
    () => call('GET', '/emails?limit=20'),
    () => (recentIds.length ? call('GET', `/emails/${randomId()}`) : call('GET', '/emails?limit=1')),
    () => call('GET', '/domains'),
    () => (recentIds.length ? call('GET', `/emails/${randomId()}`) : call('GET', '/emails?limit=1')),
    () => (domainId ? call('GET', `/domains/${domainId}`) : call('GET', '/domains')),
    () => call('GET', '/webhooks'),
    () => call('GET', '/logs?limit=20'),
  ];
  let readTurn = 0;
  const load = [
    every(SEND_RATE, async () => {
      const n = ++sent;
      const answer = await call('POST', '/emails', {
        from: 'Soak <soak@bench.test>',
        to: `user${n % 1000}@sink.test`,
        subject: `soak ${n}`,
        html: `<p>Soak message ${n}</p>`,
        text: `Soak message ${n}`,
        tags: [{ name: 'bench', value: 'soak' }],
      });
      if (answer?.id) {
        accepted++;
        recentIds.push(answer.id);
        if (recentIds.length > 500) recentIds.shift();
      }
    }),
    every(READ_RATE, async () => void (await reads[readTurn++ % reads.length]!())),
  ];

  // Measurements.
  const db = await mysql.createConnection(`${SERVER}/${database}`);
  const count = async (sql: string) => Number(((await db.query(sql)) as unknown as [Array<{ n: number }>])[0][0]!.n);
  // Mail not yet delivered: emails the MTA has not handed over yet (no deliveries) + deliveries not final.
  const queueDepth = async () => ({
    mail:
      (await count(`SELECT COUNT(*) AS n FROM emails WHERE last_event = 'queued'`)) +
      (await count(`SELECT COUNT(*) AS n FROM deliveries WHERE state IN ('queued', 'deferred', 'sending')`)),
    hooks: await count(`SELECT COUNT(*) AS n FROM webhook_deliveries WHERE status IN ('pending', 'attempting')`),
  });
  /** The process and its descendants (cluster workers), from /proc/<pid>/stat. */
  const treeOf = (root: number): number[] => {
    const parentOf = new Map<number, number>();
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        parentOf.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
      } catch {
        /* gone */
      }
    }
    const tree = [root];
    for (let i = 0; i < tree.length; i++) for (const [pid, ppid] of parentOf) if (ppid === tree[i]) tree.push(pid);
    return tree;
  };
  const safe = (read: () => number) => {
    try {
      return read();
    } catch {
      return 0;
    }
  };
  const rssOf = (pid: number) =>
    safe(() => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024);
  const fdsOf = (pid: number) => safe(() => readdirSync(`/proc/${pid}/fd`).length);
  const mb = (bytes: number) => (bytes / 1048576).toFixed(1);
  const ownLoop = monitorEventLoopDelay({ resolution: 10 });
  ownLoop.enable();

  type Sample = { rss: number; fds: number; heap: number | undefined; loopP99: number | undefined };
  type Row = {
    minute: number;
    rps: number;
    per: Record<string, Sample>;
    rss: number;
    fds: number;
    heap: number | undefined;
    loopP99: number | undefined;
    queue: { mail: number; hooks: number };
    delivered: number;
    webhooks: number;
    accepted: number;
  };
  const sample = async (): Promise<Record<string, Sample>> => {
    const probes = await Promise.all(parts.map((part) => part.ask()));
    return Object.fromEntries(
      parts.map((part, i) => {
        const pids = treeOf(part.child.pid!);
        return [
          part.name,
          {
            rss: pids.reduce((sum, pid) => sum + rssOf(pid), 0),
            fds: pids.reduce((sum, pid) => sum + fdsOf(pid), 0),
            heap: probes[i]?.heapUsed,
            loopP99: probes[i]?.loopP99Ms,
          },
        ];
      }),
    );
  };
  await sample(); // resets the probes' loop histograms: minute 1 starts now
  const rows: Row[] = [];
  const names = parts.map((part) => part.name).join('+');
  console.log(
    `soak: ${MINUTES} min, ${SEND_RATE} sends/s + ${READ_RATE} reads/s (at most ${CONCURRENCY} in flight each) against ${parts.map((p) => `mailroom ${p.name} (pid ${p.child.pid})`).join(', ')}; MariaDB + Redis`,
  );
  console.log(
    `RSS, heap, fds: sums over ${names}; loop p99: the worst of them (probe inside each process); queue: mail not yet delivered (emails not handed over + deliveries not final) + webhook deliveries not settled`,
  );
  console.log(
    'minute  req/s  RSS MB  heap MB  fds  queue mail+hooks  loop p99 ms  accepted  delivered  webhooks  failures',
  );
  const started = Date.now();
  let lastAnswered = 0;
  for (let minute = 1; minute <= Math.ceil(MINUTES); minute++) {
    const length = Math.min(1, MINUTES - (minute - 1)) * MINUTE_MS;
    await new Promise((resolve) =>
      setTimeout(resolve, Math.max(0, started + (minute - 1) * MINUTE_MS + length - Date.now())),
    );
    const per = await sample();
    const samples = Object.values(per);
    const heaps = samples.map((s) => s.heap);
    const loops = samples.map((s) => s.loopP99).filter((v): v is number => v !== undefined);
    const row: Row = {
      minute,
      rps: (answered - lastAnswered) / (length / 1000),
      per,
      rss: samples.reduce((sum, s) => sum + s.rss, 0),
      fds: samples.reduce((sum, s) => sum + s.fds, 0),
      heap: heaps.every((h) => h !== undefined) ? heaps.reduce((sum, h) => sum! + h!, 0) : undefined,
      loopP99: loops.length ? Math.max(...loops) : undefined,
      queue: await queueDepth(),
      delivered: countDelivered(),
      webhooks: webhooksReceived,
      accepted,
    };
    lastAnswered = answered;
    rows.push(row);
    console.log(
      [
        String(minute).padStart(6),
        row.rps.toFixed(1).padStart(5),
        mb(row.rss).padStart(6),
        (row.heap !== undefined ? mb(row.heap) : 'n/a').padStart(7),
        String(row.fds).padStart(4),
        `${row.queue.mail}+${row.queue.hooks}`.padStart(17),
        (row.loopP99 !== undefined ? row.loopP99.toFixed(1) : 'n/a').padStart(11),
        String(row.accepted).padStart(8),
        String(row.delivered).padStart(9),
        String(row.webhooks).padStart(8),
        String(failures).padStart(8),
      ].join('  '),
    );
  }
  stopping = true;
  await Promise.all(load);

  // Drain: everything accepted should reach the sink, and its webhooks the receiver.
  const drainStart = Date.now();
  let queue = await queueDepth();
  while ((queue.mail > 0 || queue.hooks > 0) && Date.now() - drainStart < DRAIN_SECONDS * 1000) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    queue = await queueDepth();
  }
  const drainSeconds = (Date.now() - drainStart) / 1000;
  const states = (
    (await db.query(`SELECT state, COUNT(*) AS n FROM deliveries GROUP BY state`)) as unknown as [
      Array<{ state: string; n: number }>,
    ]
  )[0];
  const hookStates = (
    (await db.query(`SELECT status, COUNT(*) AS n FROM webhook_deliveries GROUP BY status`)) as unknown as [
      Array<{ status: string; n: number }>,
    ]
  )[0];
  await db.end();
  countDelivered();
  const final = await sample();
  await stopParts();

  const baseline = rows.find((row) => row.minute === 2) ?? rows[0]!;
  const last = rows.at(-1)!;
  const change = (a: number, b: number) => (a === 0 ? 0 : ((b - a) / a) * 100);
  const verdict = (a: number, b: number) =>
    `${change(a, b) >= 0 ? '+' : ''}${change(a, b).toFixed(1)}%, ${Math.abs(change(a, b)) <= 10 ? 'flat' : 'NOT flat'}`;
  console.log('');
  console.log(
    `summary (minute ${baseline.minute} vs minute ${last.minute}${rows.length < 3 ? '; too short a run to judge a trend' : ''}):`,
  );
  console.log(
    `  RSS total: ${mb(baseline.rss)} -> ${mb(last.rss)} MB (${verdict(baseline.rss, last.rss)}; goal within 10%)`,
  );
  console.log(`  fds total: ${baseline.fds} -> ${last.fds} (${verdict(baseline.fds, last.fds)}; goal within 10%)`);
  for (const part of parts) {
    const a = baseline.per[part.name]!;
    const b = last.per[part.name]!;
    const heap = a.heap !== undefined && b.heap !== undefined ? `, heap ${mb(a.heap)} -> ${mb(b.heap)} MB` : '';
    console.log(
      `  ${part.name}: RSS ${mb(a.rss)} -> ${mb(b.rss)} MB (${verdict(a.rss, b.rss)}), fds ${a.fds} -> ${b.fds} (${verdict(a.fds, b.fds)})${heap}`,
    );
  }
  console.log(
    `  after the drain: RSS ${Object.entries(final)
      .map(([name, s]) => `${name} ${mb(s.rss)} MB`)
      .join(', ')}; fds ${Object.entries(final)
      .map(([name, s]) => `${name} ${s.fds}`)
      .join(', ')}`,
  );
  console.log(
    `  requests answered: ${answered} (${(answered / ((MINUTES * MINUTE_MS) / 1000)).toFixed(1)}/s), failed: ${failures}, ticks skipped (all ${CONCURRENCY} busy): ${skipped}${failureSamples.length ? `\n    ${failureSamples.join('\n    ')}` : ''}`,
  );
  console.log(
    `  emails accepted ${accepted}, delivered to the sink ${delivered}; webhooks received ${webhooksReceived} (expected 2 per email: sent, delivered); queue after ${drainSeconds.toFixed(0)} s drain: ${queue.mail} mail + ${queue.hooks} webhooks`,
  );
  console.log(
    `  deliveries by state: ${JSON.stringify(Object.fromEntries(states.map((r) => [r.state, Number(r.n)])))}; webhook deliveries by status: ${JSON.stringify(Object.fromEntries(hookStates.map((r) => [r.status, Number(r.n)])))}`,
  );
  console.log(
    `  worst loop p99 of a minute: ${Math.max(...rows.map((r) => r.loopP99 ?? 0)).toFixed(1)} ms (appliance); this load generator's own loop p99 over the run: ${Math.max(0, ownLoop.percentile(99) / 1e6 - 10).toFixed(1)} ms`,
  );
  const errors = parts.reduce((sum, part) => sum + part.errors.length, 0);
  console.log(
    `  error-level log lines (level >= 50): ${errors} (goal 0${shutdownErrors ? `; ${shutdownErrors} of them during shutdown` : ''}) [${parts.map((p) => `${p.name} ${p.errors.length}`).join(', ')}]`,
  );
  for (const part of parts) for (const [msg, n] of part.errorsByMsg) console.log(`    ${part.name}: ${n} x "${msg}"`);
  for (const part of parts) for (const line of part.errors.slice(0, 3)) console.log(`    ${part.name}: ${line}`);
  console.log(
    `  warn-level lines: ${parts.map((p) => `${p.name} ${p.warnings}`).join(', ')}; other output (not pino): ${parts.map((p) => `${p.name} ${p.other.length}`).join(', ')}`,
  );
  for (const part of parts) for (const line of part.other.slice(0, 3)) console.log(`    ${part.name}: ${line}`);
}
