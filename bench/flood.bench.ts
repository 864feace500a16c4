/**
 * Flood benchmark: one team floods POST /emails far past its rate limit (the default 10/s) and
 * the appliance refuses. Prints refusals per second, the API process's CPU per refusal (and so
 * the refusals one core can answer), and how many refusals reached the request log (at most one
 * per key per second by design). One API process, MariaDB and the in-process rate-limit store.
 *
 *   npm run bench:flood    (MariaDB on 127.0.0.1:3306 as root)
 *   FLOOD_TOTAL (10000), FLOOD_CONCURRENCY (64), FLOOD_WARMUP (1000), FLOOD_REDIS=1 (the Redis store)
 * Goal: at least 5,000 refusals per second on one core.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { cpuSecondsOfPids } from './cpu-ticks.js';
import { postLoadInChild } from './load-process.js';
import { seedBenchTeam, startMailroomProcess } from './mailroom-process.js';

const TOTAL = Number(process.env.FLOOD_TOTAL ?? 10_000);
const CONCURRENCY = Number(process.env.FLOOD_CONCURRENCY ?? 64);
const WARMUP = Number(process.env.FLOOD_WARMUP ?? 1000);
const SERVER = process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306';
const REDIS = process.env.FLOOD_REDIS ? (process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379') : undefined;
const GOAL = 5000;

const database = `mailroom_flood_${process.pid}`;
const dataDir = mkdtempSync(join(tmpdir(), 'mailroom-flood-'));
const env: Record<string, string> = {
  MAILROOM_CONFIG: '',
  MAILROOM_ENV: 'test',
  MAILROOM_DATA_DIR: dataDir,
  MAILROOM_DATABASE_URL: `${SERVER}/${database}`,
  MAILROOM_API_PORT: '0',
  MAILROOM_METRICS_PORT: '0',
  MAILROOM_API_WORKERS: '1',
  MAILROOM_DNS_SERVERS: '127.0.0.1:1',
  MAILROOM_RATE_LIMIT_PER_SECOND: '10',
  ...(REDIS ? { MAILROOM_REDIS_URL: REDIS, MAILROOM_REDIS_KEY_PREFIX: `mailroom-flood:${process.pid}:` } : {}),
};

async function main(): Promise<void> {
  const token = await seedBenchTeam(env);
  const api = await startMailroomProcess(env);
  let cpuBefore = 0;
  try {
    const result = await postLoadInChild(
      {
        url: `${api.url}/emails`,
        headers: { 'user-agent': 'flood', authorization: `Bearer ${token}` },
        total: TOTAL,
        concurrency: CONCURRENCY,
        warmup: WARMUP,
      },
      () => {
        cpuBefore = cpuSecondsOfPids([api.pid]);
      },
    );
    const serverMs = ((cpuSecondsOfPids([api.pid]) - cpuBefore) * 1000) / TOTAL;
    const refused = result.statuses[429] ?? 0;
    const db = await mysql.createConnection({ uri: `${SERVER}/${database}` });
    const [rows] = (await db.query(
      'SELECT response_status AS status, COUNT(*) AS n FROM request_logs GROUP BY response_status',
    )) as unknown as [Array<{ status: number; n: number }>];
    await db.end();
    const logged = Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
    console.log(
      `flood: ${TOTAL} requests after ${WARMUP} warm-up, concurrency ${CONCURRENCY}, limit 10/s, ${REDIS ? 'Redis' : 'in-process'} rate-limit store, MariaDB`,
    );
    console.log(`answers: ${JSON.stringify(result.statuses)} in ${result.seconds.toFixed(2)} s`);
    console.log(
      `refusals per second: ${Math.round(refused / result.seconds)} (all answers ${Math.round(result.perSecond)}/s)`,
    );
    console.log(
      `API process CPU per request: ${serverMs.toFixed(3)} ms, so one core answers ${Math.round(1000 / serverMs)} refusals/s (goal ${GOAL}: ${1000 / serverMs >= GOAL ? 'met' : 'not met'})`,
    );
    console.log(`load generator CPU per request: ${((result.clientCpuSeconds * 1000) / TOTAL).toFixed(3)} ms`);
    console.log(
      `request log rows, whole run including warm-up: ${JSON.stringify(logged)} (429s: at most one per key per second)`,
    );
  } finally {
    await api.stop();
    const admin = await mysql.createConnection({ uri: `${SERVER}/` });
    await admin.query(`DROP DATABASE IF EXISTS \`${database}\``);
    await admin.end();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
