/**
 * Send-path benchmark: accepted sends per second through POST /emails on MariaDB with durable
 * commit, against a bare Koa + mysql2 reference doing one INSERT per request, in the same run.
 * Mailroom runs as `mailroom api`: one process with the in-process rate-limit store (a single
 * node's default), one process with Redis, and `BENCH_WORKERS` API workers (api.workers, which
 * need Redis). Every ratio is against the same single-process reference. The load generator is a
 * process of its own for every server, so no server shares its thread with the client.
 *
 *   npm run bench:send   (MariaDB on 127.0.0.1:3306 as root, Redis on 127.0.0.1:6379)
 *   BENCH_TOTAL, BENCH_CONCURRENCY, BENCH_WARMUP, BENCH_WORKERS, BENCH_ROUNDS (medians of rounds)
 *   BENCH_ONLY=single,redis,workers: only these Mailroom runs (all three by default), e.g. to profile one
 */
import { availableParallelism } from 'node:os';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readdirSync, readFileSync } from 'node:fs';
import mysql from 'mysql2/promise';
import { cpuSeconds, cpuSecondsOfPids, machineCeilingPerSecond } from './cpu-ticks.js';
import { postLoadInChild, type LoadResult } from './load-process.js';
import { startMailroomProcess, seedBenchTeam } from './mailroom-process.js';
import { startReferenceServer } from './reference-server.js';

const TOTAL = Number(process.env.BENCH_TOTAL ?? 4000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 1000);
const WORKERS = Number(process.env.BENCH_WORKERS ?? availableParallelism());
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
const SERVER = process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306';
const REDIS = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** CPU ms per measured request of the server, of MariaDB (mariadbd) and of the load generator. */
type Measured = LoadResult & {
  cpuMsPerRequest: number;
  databaseCpuMsPerRequest: number;
  clientCpuMsPerRequest: number;
};

const CORES = availableParallelism();

/**
 * The load, and the CPU time (user + system) per measured request of the server's processes,
 * of MariaDB and of the load generator, read at the end of the warm-up and at the end of the run.
 * Far steadier than throughput on a shared machine, and what the goal depends on here: every
 * process of the run shares the machine's cores.
 */
async function load(url: string, headers: Record<string, string>, serverCpuSeconds: () => number): Promise<Measured> {
  let before = { server: 0, database: 0 };
  const result = await postLoadInChild(
    { url, headers: { 'user-agent': 'bench', ...headers }, total: TOTAL, concurrency: CONCURRENCY, warmup: WARMUP },
    () => {
      before = { server: serverCpuSeconds(), database: cpuSeconds(['mariadbd']) };
    },
  );
  const perRequest = (seconds: number) => (seconds * 1000) / TOTAL;
  return {
    ...result,
    cpuMsPerRequest: perRequest(serverCpuSeconds() - before.server),
    databaseCpuMsPerRequest: perRequest(cpuSeconds(['mariadbd']) - before.database),
    clientCpuMsPerRequest: perRequest(result.clientCpuSeconds),
  };
}

/** The machine's ceiling at the run's CPU per request: server, MariaDB and load generator. */
const ceilingPerSecond = (r: Measured) =>
  machineCeilingPerSecond(r.cpuMsPerRequest + r.databaseCpuMsPerRequest + r.clientCpuMsPerRequest);

/** The process and its descendants (an API cluster's workers). */
function processTree(pid: number): number[] {
  const children: number[] = [];
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    for (const child of readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean))
      children.push(Number(child));
  }
  return [pid, ...children.flatMap(processTree)];
}

const ownCpuSeconds = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
};

async function dropDatabase(name: string) {
  const admin = await mysql.createConnection({ uri: `${SERVER}/` });
  await admin.query(`DROP DATABASE IF EXISTS \`${name}\``);
  await admin.end();
}

async function reference(round: number): Promise<Measured> {
  const database = `mailroom_bench_ref_${process.pid}_${round}`;
  const server = await startReferenceServer(SERVER, database, CONCURRENCY);
  try {
    // The reference server runs in this process, which does nothing else meanwhile.
    return await load(`${server.url}/emails`, {}, ownCpuSeconds);
  } finally {
    await server.close();
    await dropDatabase(database);
  }
}

async function mailroom(round: number, workers: number, redis: boolean): Promise<Measured> {
  const database = `mailroom_bench_${process.pid}_${round}_${workers}_${redis ? 'r' : 'm'}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'mailroom-bench-'));
  const env = {
    MAILROOM_CONFIG: '',
    MAILROOM_ENV: 'test',
    MAILROOM_DATA_DIR: dataDir,
    MAILROOM_DATABASE_URL: `${SERVER}/${database}`,
    MAILROOM_DATABASE_POOL_MAX: String(CONCURRENCY),
    ...(redis
      ? { MAILROOM_REDIS_URL: REDIS, MAILROOM_REDIS_KEY_PREFIX: `mailroom-bench:${process.pid}:${round}:${workers}:` }
      : {}),
    MAILROOM_API_PORT: '0',
    MAILROOM_METRICS_PORT: '0',
    MAILROOM_API_WORKERS: String(workers),
    MAILROOM_DNS_SERVERS: '127.0.0.1:1',
    // The operator-raised per-team rate: the spec's 10/s is the default, not a ceiling.
    MAILROOM_RATE_LIMIT_PER_SECOND: '100000',
  };
  try {
    const token = await seedBenchTeam(env);
    const api = await startMailroomProcess(env);
    try {
      const tree = processTree(api.pid);
      return await load(`${api.url}/emails`, { authorization: `Bearer ${token}` }, () => cpuSecondsOfPids(tree));
    } finally {
      await api.stop();
    }
  } finally {
    await dropDatabase(database);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const rate = (r: Measured) =>
  `${r.perSecond.toFixed(0)}/s in ${r.seconds.toFixed(2)} s, CPU ms/request: server ${r.cpuMsPerRequest.toFixed(3)}, MariaDB ${r.databaseCpuMsPerRequest.toFixed(3)}, ` +
  `load generator ${r.clientCpuMsPerRequest.toFixed(3)}; failed ${r.failed} ${JSON.stringify(r.statuses)}`;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;

const admin = await mysql.createConnection({ uri: `${SERVER}/` });
const [flush] = (await admin.query(`SHOW VARIABLES LIKE 'innodb_flush_log_at_trx_commit'`)) as unknown as [
  Array<{ Value: string }>,
];
await admin.end();
console.log(
  `send-path benchmark: ${TOTAL} requests after ${WARMUP} warm-up, concurrency ${CONCURRENCY}, innodb_flush_log_at_trx_commit=${flush[0]?.Value}, ` +
    `${CORES} cores, load generator in its own process, ${ROUNDS} round(s)`,
);
const ONLY = (process.env.BENCH_ONLY ?? 'single,redis,workers').split(',');
const runs = [
  {
    name: 'single',
    label: 'mailroom POST /emails, 1 API process, in-process rate-limit store',
    run: (round: number) => mailroom(round, 1, false),
  },
  {
    name: 'redis',
    label: 'mailroom POST /emails, 1 API process, Redis',
    run: (round: number) => mailroom(round, 1, true),
  },
  {
    name: 'workers',
    label: `mailroom POST /emails, ${WORKERS} API workers (api.workers), Redis`,
    run: (round: number) => mailroom(round, WORKERS, true),
  },
].filter((r) => ONLY.includes(r.name));
const refs: number[] = [];
const refCpu: number[] = [];
const results = runs.map(
  () =>
    [] as Array<{ rate: number; ratio: number; cpu: number; database: number; client: number; ceilingRatio: number }>,
);
for (let round = 1; round <= ROUNDS; round++) {
  const ref = await reference(round);
  refs.push(ref.perSecond);
  refCpu.push(ref.cpuMsPerRequest);
  console.log(`[${round}] reference (Koa + mysql2, 1 INSERT/request, 1 process): ${rate(ref)}`);
  for (const [i, { label, run }] of runs.entries()) {
    const result = await run(round);
    results[i]!.push({
      rate: result.perSecond,
      ratio: result.perSecond / ref.perSecond,
      cpu: result.cpuMsPerRequest,
      database: result.databaseCpuMsPerRequest,
      client: result.clientCpuMsPerRequest,
      ceilingRatio: ceilingPerSecond(result) / ref.perSecond,
    });
    console.log(`[${round}] ${label}: ${rate(result)}`);
  }
}
console.log(`\nmedians of ${ROUNDS} round(s); every ratio is against the single-process reference of its round`);
console.log(`reference: ${median(refs).toFixed(0)}/s, server CPU ${median(refCpu).toFixed(3)} ms/request`);
for (const [i, { label }] of runs.entries()) {
  const of = (pick: (r: (typeof results)[number][number]) => number) => median(results[i]!.map(pick));
  console.log(
    `${label}: ${of((r) => r.rate).toFixed(0)}/s, ratio ${of((r) => r.ratio).toFixed(2)}, CPU ms/request: server ${of((r) => r.cpu).toFixed(3)}, ` +
      `MariaDB ${of((r) => r.database).toFixed(3)}, load generator ${of((r) => r.client).toFixed(3)}; ` +
      `ceiling with all ${CORES} cores busy at that CPU cost: ratio ${of((r) => r.ceilingRatio).toFixed(2)}`,
  );
}
const ratioOf = (name: string) => {
  const i = runs.findIndex((r) => r.name === name);
  return i < 0 ? 'not run' : median(results[i]!.map((r) => r.ratio)).toFixed(2);
};
console.log(`ratio, single process: ${ratioOf('single')}`);
console.log(`ratio, ${WORKERS} API workers (multi-process, NOT single-process): ${ratioOf('workers')}`);
