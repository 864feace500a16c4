/**
 * Audience benchmark: a contact import of AUDIENCE_ROWS rows (default 1,000,000) with five
 * properties, uploaded through the API of a `mailroom api` process and run by a `mailroom
 * scheduler` process, then a segment count over those contacts, then contact creates through
 * HTTP. Prints figures only.
 *
 *   npm run bench:audience            (SQLite in a temporary directory)
 *   MAILROOM_BENCH_DATABASE_URL=mysql://root@127.0.0.1:3306 npm run bench:audience   (a fresh MariaDB database)
 *   AUDIENCE_ROWS, AUDIENCE_CREATES (default 4000), AUDIENCE_CONCURRENCY (default 32);
 *   BENCH_NODE_ARGS: node options for the scheduler (e.g. `--cpu-prof --cpu-prof-dir=prof`)
 *
 * Import: rows per second from the import's started_at to its completed_at (the worker's own
 * time, not the upload's), the scheduler's peak RSS (VmHWM) and CPU ms per 1,000 rows of the
 * scheduler and of mariadbd. Segment count: SegmentService.metrics on a filter of three
 * conditions (two properties and the address), milliseconds per call. Creates: POST /contacts
 * with AUDIENCE_CONCURRENCY clients over keep-alive, latency p50 and p99.
 */
import { spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, openAsBlob, readFileSync, rmSync, statSync } from 'node:fs';
import { createLoad } from './contact-create-load.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Knex } from 'knex';
import { buildState } from '../bin/build-state.js';
import { createRuntime } from '../app/runtime.js';
import { loadConfig } from '../lib/config/load-config.js';
import { createLogger } from '../lib/logger.js';
import { CREATE_GOAL, SEGMENT_GOALS, printGoal, printImportGoals } from './audience-goals.js';
import { cpuSeconds, cpuSecondsOfPids } from './cpu-ticks.js';
import { startMailroomProcess } from './mailroom-process.js';

const ROWS = Number(process.env.AUDIENCE_ROWS ?? 1_000_000);
const CREATES = Number(process.env.AUDIENCE_CREATES ?? 4000);
const CONCURRENCY = Number(process.env.AUDIENCE_CONCURRENCY ?? 32);
const SERVER = process.env.MAILROOM_BENCH_DATABASE_URL || null;
const BIN = fileURLToPath(new URL('../bin/mailroom.js', import.meta.url));
const PLANS = ['free', 'starter', 'pro', 'enterprise'];
const COUNTRIES = ['DE', 'FR', 'US', 'BR', 'JP', 'IN'];

const dir = mkdtempSync(join(tmpdir(), 'mailroom-bench-audience-'));
const database = SERVER
  ? `${SERVER.replace(/\/+$/, '')}/mailroom_bench_audience_${process.pid}`
  : `sqlite://${join(dir, 'mailroom.sqlite')}`;
const env: Record<string, string> = {
  MAILROOM_CONFIG: '',
  MAILROOM_DATA_DIR: join(dir, 'data'),
  MAILROOM_DATABASE_URL: database,
  MAILROOM_API_PORT: '0',
  MAILROOM_SUBMISSION_PORT: '0',
  MAILROOM_INBOUND_PORT: '0',
  MAILROOM_RATE_LIMIT_PER_SECOND: '100000',
};

/**
 * Five properties: plan, country (strings), seats, score (numbers), vip (a boolean column read
 * into a string property). Rows are short (about 38 bytes) so a million fit the 50 MB limit.
 */
async function writeCsv(path: string): Promise<void> {
  const out = createWriteStream(path);
  out.write('email,plan,seats,country,score,vip\n');
  for (let i = 0; i < ROWS; i++) {
    const line = `u${i}@ex${i % 97}.io,${PLANS[i % 4]},${i % 500},${COUNTRIES[i % 6]},${(i % 1000) / 10},${i % 3 === 0}\n`;
    if (!out.write(line)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

/** MariaDB's buffer pool: the segment count's floor at a million contacts (bench/README.md). */
async function bufferPoolMb(knex: Knex): Promise<number> {
  const [rows] = (await knex.raw('SELECT @@innodb_buffer_pool_size AS size')) as [Array<{ size: number | string }>];
  return Math.round(Number(rows[0]!.size) / 1048576);
}

/** Peak resident memory of a process (VmHWM), in MB. */
const peakRssMb = (pid: number) =>
  Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

async function main() {
  const runtime = await createRuntime(loadConfig(env), { logger: createLogger('silent') });
  const { services } = runtime;
  const team = await services.teams.create({ name: 'Audience bench', planCode: 'unlimited' });
  const { token } = await services.apiKeys.create(team.id, { name: 'bench', permission: 'full_access' });
  for (const [key, type] of [
    ['plan', 'string'],
    ['seats', 'number'],
    ['country', 'string'],
    ['score', 'number'],
    ['vip', 'string'],
  ] as const)
    await services.contactProperties.create(team.id, { key, type });
  const api = await startMailroomProcess(env);
  const csv = join(dir, 'contacts.csv');
  try {
    let started = performance.now();
    await writeCsv(csv);
    console.log(
      `generated ${ROWS} rows (${(statSync(csv).size / 1e6).toFixed(1)} MB) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );

    // The scheduler process, from the compiled build as in production (bin/mailroom.js falls back
    // to tsx, with a warning, when dist/ is stale: then the RSS includes tsx's compiler).
    console.log(
      `scheduler: ${buildState(fileURLToPath(new URL('..', import.meta.url))).fresh ? 'compiled build (dist/)' : 'TypeScript through tsx (dist/ is stale: npm run build)'}`,
    );
    const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
    const scheduler = spawn(process.execPath, [...nodeArgs, BIN, 'scheduler'], {
      env: { ...process.env, ...env, MAILROOM_METRICS_PORT: '0', MAILROOM_LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const lines = createInterface({ input: scheduler.stdout! });
    const logged = (text: string) =>
      new Promise<void>((resolve, reject) => {
        const onLine = (line: string) => {
          if (!line.includes(text)) return;
          lines.off('line', onLine);
          resolve();
        };
        lines.on('line', onLine);
        scheduler.once('exit', (code) => reject(new Error(`scheduler exited (${code})`)));
      });
    await logged('"scheduler started"');
    const idleRss = peakRssMb(scheduler.pid!);
    const finished = logged('"contact import finished"');
    finished.catch(() => undefined);

    // The upload: the file streamed from disk into a multipart request.
    const form = new FormData();
    form.append('file', await openAsBlob(csv), 'contacts.csv');
    form.append('column_map', JSON.stringify({ properties: { vip: { column: 'vip', type: 'boolean' } } }));
    started = performance.now();
    const cpuBefore = { scheduler: cpuSecondsOfPids([scheduler.pid!]), database: cpuSeconds(['mariadbd']) };
    const upload = await fetch(`${api.url}/contacts/imports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'user-agent': 'bench' },
      body: form,
    });
    const { id } = (await upload.json()) as { id: string };
    if (upload.status !== 201) throw new Error(`upload answered ${upload.status}`);
    console.log(`upload: 201 in ${Math.round(performance.now() - started)} ms`);
    await finished;
    const cpu = {
      scheduler: cpuSecondsOfPids([scheduler.pid!]) - cpuBefore.scheduler,
      database: cpuSeconds(['mariadbd']) - cpuBefore.database,
    };
    const rss = peakRssMb(scheduler.pid!);
    scheduler.kill('SIGTERM');
    await once(scheduler, 'exit');
    const row = (await runtime.db.knex('contact_imports').where({ id }).first()) as Record<string, unknown>;
    const seconds =
      (new Date(row.completed_at as string | number).getTime() -
        new Date(row.started_at as string | number).getTime()) /
      1000;
    const imp = await services.contactImports.get(team.id, id);
    console.log(`import: ${imp.status}, counts ${JSON.stringify(imp.counts)}`);
    console.log(
      `import: ${Math.round(ROWS / seconds)} rows/s (${seconds.toFixed(1)} s), scheduler peak RSS ${rss.toFixed(0)} MB (${idleRss.toFixed(0)} MB when it started, idle)`,
    );
    console.log(
      `import CPU per 1,000 rows: scheduler ${((cpu.scheduler * 1e6) / ROWS).toFixed(1)} ms` +
        (SERVER ? `, mariadbd ${((cpu.database * 1e6) / ROWS).toFixed(1)} ms` : ''),
    );
    printImportGoals(ROWS / seconds, rss);

    // A segment count over those contacts: three conditions.
    const segment = await services.segments.create(team.id, {
      name: 'Bench segment',
      filter: {
        all: [
          { field: 'properties.plan', op: 'eq', value: 'pro' },
          { field: 'properties.seats', op: 'gte', value: 100 },
          { field: 'email', op: 'contains', value: '@ex1' },
        ],
      },
    });
    const timings: number[] = [];
    let metrics = await services.segments.metrics(team.id, segment.id);
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      metrics = await services.segments.metrics(team.id, segment.id);
      timings.push(performance.now() - t0);
    }
    timings.sort((a, b) => a - b);
    console.log(
      `segment count (3 conditions, ${metrics.contacts} of ${ROWS} match): median ${timings[2]!.toFixed(0)} ms, best ${timings[0]!.toFixed(0)} ms` +
        (SERVER ? `; innodb_buffer_pool_size ${await bufferPoolMb(runtime.db.knex)} MB` : ''),
    );
    printGoal(SEGMENT_GOALS[SERVER ? 'mysql' : 'sqlite'], timings[2]!);

    // Contact creates through HTTP.
    const latencies = await createLoad(api.url, token, { requests: CREATES, concurrency: CONCURRENCY });
    const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!.toFixed(1);
    console.log(
      `contact create at ${CONCURRENCY} clients (${CREATES} requests): p50 ${at(0.5)} ms, p99 ${at(0.99)} ms`,
    );
    printGoal(CREATE_GOAL, Number(at(0.99)));
  } finally {
    await api.stop();
    if (SERVER) await runtime.db.knex.raw(`DROP DATABASE IF EXISTS \`${new URL(database).pathname.slice(1)}\``);
    await runtime.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
