/**
 * Automations benchmark: prints figures, asserts nothing.
 *
 * 1. Events accepted: a `mailroom api` process, a team with the custom event `user.signed_up`
 *    and MAILROOM_BENCH_AUTOMATIONS_CONTACTS (5,000) contacts written in bulk; POST /events/send
 *    ({ event, contact_id, payload: { plan: 'pro' } }) from concurrent keep-alive clients for
 *    MAILROOM_BENCH_AUTOMATIONS_SECONDS (15) after a warm-up (5 s, then 2 s), once per concurrency of
 *    MAILROOM_BENCH_AUTOMATIONS_CONCURRENCY (64,128). 202 is success. Prints accepted/s, p50/p99,
 *    errors, the ratio to issue 37's 2,000/s goal and the CPU per event of each process (an api
 *    cluster's workers included).
 * 2. Runs waking: a second appliance (its own database), MAILROOM_BENCH_AUTOMATIONS_RUNS (10,000)
 *    contacts, the automation of automations/wake-flow.ts (trigger, 1-day delay, contact update,
 *    condition, contact update); one event per contact through POST /events/send; then the run
 *    engine in this process (`runtime.services.automationRuns` of a runtime on a movable clock):
 *    enrol() until nothing is left (timed: runs/s), advance() until every run is parked on the
 *    delay; the clock jumps a day; MAILROOM_BENCH_AUTOMATIONS_WORKERS (1) concurrent advance()
 *    loops on that runtime (as the scheduler's advance-automations job runs them: one loop per
 *    scheduler process) until every run is completed: executed steps (step rows completed
 *    after the wake) per second and the ratio to the 2,000/s goal, with the time per step
 *    split by SQL statement (every statement of the engine's knex timed) and the CPU per step.
 *
 *   npm run bench:automations                      (embedded SQLite, in-process rate-limit store)
 *   MAILROOM_BENCH_DATABASE_URL=mysql://root@127.0.0.1:3306 npm run bench:automations
 *                                                  (MariaDB, a database per part, dropped at the
 *                                                   end; Redis at MAILROOM_BENCH_REDIS_URL or
 *                                                   BENCH_REDIS_URL, default redis://127.0.0.1:6379)
 * Env: MAILROOM_BENCH_AUTOMATIONS_PARTS (events,runs), MAILROOM_BENCH_AUTOMATIONS_CONTACTS,
 * MAILROOM_BENCH_AUTOMATIONS_SECONDS, MAILROOM_BENCH_AUTOMATIONS_CONCURRENCY,
 * MAILROOM_BENCH_AUTOMATIONS_RUNS, MAILROOM_BENCH_AUTOMATIONS_WORKERS (a list runs the wake once
 * per entry, each on fresh runs: e.g. 1,2), MAILROOM_BENCH_AUTOMATIONS_TIMEOUT_SECONDS (900 per
 * phase), BENCH_NODE_ARGS (node options of the api process); MAILROOM_API_WORKERS is passed on to the
 * api process (a cluster of that many workers; more than 1 needs Redis, i.e. the MariaDB run).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import mysql from 'mysql2/promise';
import { createRuntime, type Runtime } from '../app/runtime.js';
import { loadConfig } from '../lib/config/load-config.js';
import { createLogger } from '../lib/logger.js';
import { movableClock } from '../test/helpers/clock.js';
import { timedPostLoad } from './automations/event-load.js';
import { profileQueries, type QueryProfile } from './automations/query-profile.js';
import { DELAY_MS, EVENT_NAME, STEPS_AFTER_WAKE, WAKE_FLOW } from './automations/wake-flow.js';
import { BroadcastAppliance } from './broadcast/appliance.js';
import { insertContacts } from './broadcast/contacts.js';
import { positiveEnv, quantile, seconds } from './broadcast/stats.js';
import { cpuSeconds, cpuSecondsOfPids, machineCeilingPerSecond } from './cpu-ticks.js';
import { postLoad } from './http-load.js';

const CONTACTS = positiveEnv('MAILROOM_BENCH_AUTOMATIONS_CONTACTS', 5000);
const SECONDS = positiveEnv('MAILROOM_BENCH_AUTOMATIONS_SECONDS', 15, false);
const CONCURRENCY = listEnv('MAILROOM_BENCH_AUTOMATIONS_CONCURRENCY', [64, 128]);
const RUNS = positiveEnv('MAILROOM_BENCH_AUTOMATIONS_RUNS', 10_000);
const WORKERS = listEnv('MAILROOM_BENCH_AUTOMATIONS_WORKERS', [1]);
const TIMEOUT_MS = positiveEnv('MAILROOM_BENCH_AUTOMATIONS_TIMEOUT_SECONDS', 900, false) * 1000;
const PARTS = (process.env.MAILROOM_BENCH_AUTOMATIONS_PARTS ?? 'events,runs').split(',').map((p) => p.trim());
const SERVER = process.env.MAILROOM_BENCH_DATABASE_URL || null;
const REDIS = SERVER
  ? process.env.MAILROOM_BENCH_REDIS_URL || process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379'
  : null;
/** Issue 37's goals: >= 2,000 events accepted/s (with api.workers), >= 2,000 steps/s after a wake. */
const EVENTS_TARGET = 2000;
const STEPS_TARGET = 2000;
/**
 * The figures before issue 37 (the README's table then; the "today" column is the
 * MariaDB row): events accepted/s at 64 / 128 clients, steps/s after the wake.
 */
const BEFORE = process.env.MAILROOM_BENCH_DATABASE_URL
  ? { events: '450 / 643/s (1 api worker)', steps: '142/s' }
  : { events: '710 / 697/s (1 api worker)', steps: '603/s' };
const API_WORKERS = Number(process.env.MAILROOM_API_WORKERS ?? 1) || 1;
/** Untimed load before each window; the first one longer (the api process's JIT warms up). */
const WARM_UP_MS = 2000;
const FIRST_WARM_UP_MS = 5000;
const SEND_CONCURRENCY = 64;
const CORES = availableParallelism();
const DATABASE_PROCESSES = ['mariadbd', 'mysqld'];
const DOMAINS = ['example.test'];

for (const part of PARTS)
  if (part !== 'events' && part !== 'runs')
    throw new Error(`MAILROOM_BENCH_AUTOMATIONS_PARTS: unknown part ${part} (events, runs)`);

const n = (value: number) => Math.round(value).toLocaleString('en-US');
const log = (line: string) => console.log(line);
const ratio = (value: number, target: number) =>
  `${(value / target).toFixed(2)}x the ${n(target)}/s goal (now / goal, higher is better: ${value >= target ? 'met' : 'missed'})`;

/** The api process and its cluster workers (their CPU is theirs, not the primary's). */
function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // exited meanwhile
    }
  }
  const all = [root];
  for (let i = 0; i < all.length; i++) all.push(...(children.get(all[i]!) ?? []));
  return all;
}

/** A comma-separated list of positive integers from the environment, else `fallback`. */
function listEnv(name: string, fallback: number[]): number[] {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const values = raw.split(',').map((v) => Number(v.trim()));
  if (!values.every((v) => Number.isInteger(v) && v > 0))
    throw new Error(`${name} must be a comma-separated list of positive integers`);
  return values;
}

/** The summary's rows: label -> figures. */
const summary: Array<{ part: string; setting: string; goal: string; before: string; figure: string; target: string }> =
  [];

// Clean-up on a signal: every appliance and runtime started, in reverse order.
const cleanups: Array<() => Promise<void>> = [];
async function cleanUp(): Promise<void> {
  for (const stop of cleanups.splice(0).reverse())
    await stop().catch((err: unknown) => console.error(`clean-up: ${(err as Error).message}`));
}
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => void cleanUp().finally(() => process.exit(130)));
async function using<T extends object>(thing: T, stop: (thing: T) => Promise<void>, body: (thing: T) => Promise<void>) {
  const entry = () => stop(thing);
  cleanups.push(entry);
  try {
    await body(thing);
  } finally {
    cleanups.splice(cleanups.indexOf(entry), 1);
    await stop(thing);
  }
}

async function conditions(): Promise<string> {
  let database =
    'embedded SQLite (a file in a temporary directory, WAL, synchronous=FULL), in-process rate-limit store';
  if (SERVER) {
    const admin = await mysql.createConnection({ uri: `${SERVER.replace(/\/+$/, '')}/` });
    const [version] = (await admin.query('SELECT VERSION() AS v')) as unknown as [Array<{ v: string }>];
    const [flush] = (await admin.query(`SHOW VARIABLES LIKE 'innodb_flush_log_at_trx_commit'`)) as unknown as [
      Array<{ Value: string }>,
    ];
    await admin.end();
    database = `MariaDB ${version[0]?.v} (innodb_flush_log_at_trx_commit=${flush[0]?.Value}), Redis ${REDIS}`;
  }
  return [
    `Automations benchmark: parts ${PARTS.join(', ')}; events: ${n(CONTACTS)} contacts, ${SECONDS} s per concurrency ${CONCURRENCY.join(', ')}; runs: ${n(RUNS)} parked runs, wake with ${WORKERS.join(', ')} advance loop(s)`,
    `machine: ${CORES} cores (${cpus()[0]?.model.trim()}); database: ${database}`,
  ].join('\n');
}

function printErrors(appliance: BroadcastAppliance): void {
  const lines = appliance.errors.summary();
  if (lines.length === 0) return;
  log('  error-level log lines of the api process:');
  for (const line of lines) log(`    ${line}`);
}

async function startAppliance(label: string): Promise<BroadcastAppliance> {
  return BroadcastAppliance.start({ label, server: SERVER, redis: REDIS, config: {} });
}

/** `count` contacts in bulk plus the event definition; returns the contacts' ids. */
async function population(appliance: BroadcastAppliance, count: number): Promise<string[]> {
  const started = performance.now();
  const city = await appliance.call<{ id: string }>('POST', '/contact-properties', {
    key: 'city',
    type: 'string',
    fallback_value: 'Nowhere',
  });
  await insertContacts(appliance.runtime.db.knex, appliance.teamId, count, {
    domains: DOMAINS,
    cityPropertyId: city.id,
  });
  await appliance.call('POST', '/events', { name: EVENT_NAME });
  const rows = (await appliance.runtime.db
    .knex('contacts')
    .where({ team_id: appliance.teamId })
    .orderBy('id')
    .select('id')) as Array<{ id: string }>;
  log(
    `set-up: ${n(rows.length)} contacts written in bulk and the event ${EVENT_NAME} defined in ${seconds(performance.now() - started)} (not measured)`,
  );
  return rows.map((r) => r.id);
}

const apiHeaders = (appliance: BroadcastAppliance) => ({
  authorization: `Bearer ${appliance.token}`,
  'user-agent': 'automations-bench',
});

const sendBody = (contactIds: string[]) => (i: number) => ({
  event: EVENT_NAME,
  contact_id: contactIds[i % contactIds.length],
  payload: { plan: 'pro' },
});

/** Part 1: POST /events/send accepted per second. */
async function eventsPart(): Promise<void> {
  log(`\n## 1. Events accepted through POST /events/send`);
  const appliance = await startAppliance('events');
  await using(
    appliance,
    async (a) => {
      printErrors(a);
      await a.close();
    },
    async () => {
      const contactIds = await population(appliance, CONTACTS);
      for (const [index, concurrency] of CONCURRENCY.entries()) {
        const warmUpMs = index === 0 ? FIRST_WARM_UP_MS : WARM_UP_MS;
        const before = {
          api: cpuSecondsOfPids(processTree(appliance.api.pid)),
          database: cpuSeconds(DATABASE_PROCESSES),
          bench: process.cpuUsage(),
          rows: await occurrences(appliance),
        };
        log(`concurrency ${concurrency}: ${seconds(warmUpMs, 0)} warm-up, then ${SECONDS} s measured`);
        const result = await timedPostLoad({
          url: `${appliance.api.url}/events/send`,
          headers: apiHeaders(appliance),
          body: sendBody(contactIds),
          concurrency,
          warmUpMs,
          durationMs: SECONDS * 1000,
          onProgress: (ms, accepted, errors) =>
            log(
              `  [${seconds(ms, 0).padStart(5)}] ${n(accepted)} accepted (${n((accepted * 1000) / ms)}/s), ${errors} errors`,
            ),
        });
        // CPU over warm-up and window together (both at full load), per event answered in them.
        const cpu = {
          api: cpuSecondsOfPids(processTree(appliance.api.pid)) - before.api,
          database: cpuSeconds(DATABASE_PROCESSES) - before.database,
          bench: ((u) => (u.user + u.system) / 1e6)(process.cpuUsage(before.bench)),
        };
        const rows = (await occurrences(appliance)) - before.rows;
        const perSecond = (result.accepted * 1000) / result.elapsedMs;
        const ms = (q: number) => `${quantile(result.latencies, q).toFixed(1)} ms`;
        log(
          `events accepted at concurrency ${concurrency}: ${n(result.accepted)} in ${seconds(result.elapsedMs)}: ${n(perSecond)} accepted/s; latency p50 ${ms(0.5)}, p99 ${ms(0.99)}, max ${ms(1)}; ${result.errors} errors` +
            (result.firstError ? ` (statuses ${JSON.stringify(result.statuses)}; first: ${result.firstError})` : ''),
        );
        log(`  ${ratio(perSecond, EVENTS_TARGET)}; occurrence rows written (warm-up included): ${n(rows)}`);
        const cpuMs = (cpuS: number) => (cpuS * 1000) / rows;
        const total = cpuMs(cpu.api) + cpuMs(cpu.database) + cpuMs(cpu.bench);
        log(
          `  CPU ms per event: api ${cpuMs(cpu.api).toFixed(2)}` +
            (SERVER ? `, mariadbd ${cpuMs(cpu.database).toFixed(2)}` : '') +
            `, load clients (this process) ${cpuMs(cpu.bench).toFixed(2)}; total ${total.toFixed(2)}: ${CORES} cores at that CPU make ${n(machineCeilingPerSecond(total))}/s; the api alone (${API_WORKERS} worker(s)) ${n((1000 / cpuMs(cpu.api)) * Math.min(API_WORKERS, CORES))}/s`,
        );
        summary.push({
          part: 'custom events accepted/s',
          setting: `${concurrency} clients, api.workers ${API_WORKERS}`,
          goal: `>= ${n(EVENTS_TARGET)}/s`,
          before: BEFORE.events,
          figure: `${n(perSecond)}/s; p50 ${ms(0.5)}, p99 ${ms(0.99)}; ${result.errors} errors`,
          target: `${(perSecond / EVENTS_TARGET).toFixed(2)}x`,
        });
      }
    },
  );
}

async function occurrences(appliance: BroadcastAppliance): Promise<number> {
  const [row] = (await appliance.runtime.db
    .knex('custom_event_occurrences')
    .where({ team_id: appliance.teamId })
    .count({ n: '*' })) as Array<{ n: number | string }>;
  return Number(row?.n ?? 0);
}

/** Part 2: 10,000 parked runs waking at once, for each number of advance loops. */
async function runsPart(): Promise<void> {
  for (const workers of WORKERS) {
    log(`\n## 2. ${n(RUNS)} parked runs waking at once, ${workers} advance loop(s)`);
    const appliance = await startAppliance(`runs${workers}`);
    await using(
      appliance,
      async (a) => {
        printErrors(a);
        await a.close();
      },
      async () => {
        const clock = movableClock();
        const contactIds = await population(appliance, RUNS);
        const automation = await appliance.call<{ id: string }>('POST', '/automations', WAKE_FLOW);
        let started = performance.now();
        const sent = await postLoad(
          `${appliance.api.url}/events/send`,
          apiHeaders(appliance),
          sendBody(contactIds),
          RUNS,
          SEND_CONCURRENCY,
        );
        log(
          `set-up: automation ${automation.id} enabled; ${n(RUNS)} events sent through POST /events/send at concurrency ${SEND_CONCURRENCY} in ${seconds(performance.now() - started)} (${n(sent.perSecond)}/s; statuses ${JSON.stringify(sent.statuses)})`,
        );
        if (sent.statuses[202] !== RUNS)
          throw new Error(`the events were not all accepted: statuses ${JSON.stringify(sent.statuses)}`);
        // The engine: a runtime of this process on the movable clock (the api process has none).
        const engine = await createRuntime(loadConfig(appliance.env), {
          logger: createLogger('silent'),
          clock,
        });
        await using(
          engine,
          (r) => r.close(),
          () => wake(engine, clock, workers),
        );
      },
    );
  }
}

async function runCounts(knex: Runtime['db']['knex']): Promise<Record<string, number>> {
  const rows = (await knex('automation_runs').select('status').count({ n: '*' }).groupBy('status')) as Array<{
    status: string;
    n: number | string;
  }>;
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
}

async function completedSteps(knex: Runtime['db']['knex']): Promise<number> {
  const [row] = (await knex('automation_run_steps').where({ status: 'completed' }).count({ n: '*' })) as Array<{
    n: number | string;
  }>;
  return Number(row?.n ?? 0);
}

/** Calls `step` until it returns 0, printing progress every 5 s; returns the sum of what it returned. */
async function loop(label: string, step: () => Promise<number>, progress: () => Promise<string>): Promise<number> {
  const started = performance.now();
  let last = started;
  let total = 0;
  for (;;) {
    const done = await step();
    total += done;
    if (done === 0) return total;
    const now = performance.now();
    if (now - started > TIMEOUT_MS) throw new Error(`${label} did not finish in ${seconds(TIMEOUT_MS, 0)}`);
    if (now - last >= 5000) {
      log(`  [${seconds(now - started, 0).padStart(5)}] ${label}: ${await progress()}`);
      last = now;
    }
  }
}

async function wake(engine: Runtime, clock: ReturnType<typeof movableClock>, workers: number): Promise<void> {
  const runs = engine.services.automationRuns;
  const { knex } = engine.db;

  // Enrolment: every occurrence claimed, a run (and its trigger's step row) per contact.
  let started = performance.now();
  const enrolled = await loop(
    'enrol',
    async () => (await runs.enrol()).runs,
    async () => `${n((await runCounts(knex)).running ?? 0)} runs`,
  );
  const enrolMs = performance.now() - started;
  log(`enrol: ${n(enrolled)} runs created in ${seconds(enrolMs)}: ${n((enrolled * 1000) / enrolMs)} runs/s`);
  summary.push({
    part: 'enrolment runs/s',
    setting: `enrol() loop`,
    goal: '-',
    before: '-',
    figure: `${n((enrolled * 1000) / enrolMs)}/s (${n(enrolled)} in ${seconds(enrolMs)})`,
    target: '-',
  });

  // First advance: each run goes from its trigger onto the delay and parks.
  started = performance.now();
  const claimed = await loop(
    'park',
    () => runs.advance(),
    async () => `${n(await parkedCount(knex))} parked`,
  );
  const parkMs = performance.now() - started;
  const parked = await parkedCount(knex);
  log(
    `park: ${n(claimed)} runs claimed and parked on the delay in ${seconds(parkMs)} (${n((claimed * 1000) / parkMs)} runs/s, one step each); ${n(parked)} parked, runs by status ${JSON.stringify(await runCounts(knex))}`,
  );

  // The wake: a day later every run is due at once.
  const stepsBefore = await completedSteps(knex);
  clock.advanceTo(clock.now().getTime() + DELAY_MS + 60_000);
  const cpuBefore = { bench: process.cpuUsage(), database: cpuSeconds(DATABASE_PROCESSES) };
  const profile = profileQueries(knex);
  // Timers may not fire while the loops run (SQLite: the driver is synchronous, the loops never
  // leave the microtask queue), so progress is printed from the loops themselves, and the
  // event loop's longest stall is measured.
  const timers = { last: performance.now(), longest: 0, fired: 0 };
  const ticker = setInterval(() => {
    const now = performance.now();
    timers.longest = Math.max(timers.longest, now - timers.last);
    timers.last = now;
    timers.fired++;
  }, 50);
  started = performance.now();
  let last = { at: started, steps: stepsBefore };
  let reporting = false;
  const report = async () => {
    const now = performance.now();
    if (reporting || now - last.at < 5000) return;
    reporting = true;
    const steps = await completedSteps(knex);
    const counts = await runCounts(knex);
    log(
      `  [${seconds(now - started, 0).padStart(5)}] wake: ${n(counts.completed ?? 0)} runs completed, ${n(steps - stepsBefore)} steps executed (${n(((steps - last.steps) * 1000) / (now - last.at))} steps/s over the last ${seconds(now - last.at, 0)})`,
    );
    last = { at: now, steps };
    reporting = false;
  };
  let claims = 0;
  try {
    await Promise.all(
      Array.from({ length: workers }, async () => {
        for (;;) {
          const got = await runs.advance();
          claims += got;
          if (got === 0) return;
          if (performance.now() - started > TIMEOUT_MS)
            throw new Error(`the wake did not finish in ${seconds(TIMEOUT_MS, 0)}`);
          await report();
        }
      }),
    );
  } finally {
    clearInterval(ticker);
    timers.longest = Math.max(timers.longest, performance.now() - timers.last);
  }
  const wakeMs = performance.now() - started;
  const queries = profile.stop();
  const cpu = {
    bench: ((u) => (u.user + u.system) / 1e6)(process.cpuUsage(cpuBefore.bench)),
    database: cpuSeconds(DATABASE_PROCESSES) - cpuBefore.database,
  };
  const counts = await runCounts(knex);
  const steps = (await completedSteps(knex)) - stepsBefore;
  const perSecond = (steps * 1000) / wakeMs;
  log(
    `wake: ${n(counts.completed ?? 0)} of ${n(RUNS)} runs completed in ${seconds(wakeMs)} (${n(((counts.completed ?? 0) * 1000) / wakeMs)} runs/s); runs by status ${JSON.stringify(counts)}; ${n(claims)} runs claimed by ${workers} loop(s)`,
  );
  log(
    `  steps executed after the wake: ${n(steps)} (expected ${n(RUNS * STEPS_AFTER_WAKE)}: ${STEPS_AFTER_WAKE} per run): ${n(perSecond)} steps/s; ${ratio(perSecond, STEPS_TARGET)}`,
  );
  printBreakdown(queries, steps, wakeMs, workers, cpu);
  log(
    `  event loop of this process during the wake: a 50 ms timer fired ${n(timers.fired)} times in ${seconds(wakeMs)}; longest gap ${n(timers.longest)} ms (timers and I/O of the process wait that long)`,
  );
  summary.push({
    part: `automation steps after a wake, ${n(RUNS)} runs`,
    setting: `${workers} advance loop(s)`,
    goal: `>= ${n(STEPS_TARGET)}/s`,
    before: BEFORE.steps,
    figure: `${n(perSecond)}/s (${n(steps)} steps, ${n(counts.completed ?? 0)} runs in ${seconds(wakeMs)})`,
    target: `${(perSecond / STEPS_TARGET).toFixed(2)}x`,
  });
}

/** Runs parked on the delay: their `wait` step row is waiting. */
async function parkedCount(knex: Runtime['db']['knex']): Promise<number> {
  const [row] = (await knex('automation_run_steps')
    .where({ step_key: 'wait', status: 'waiting' })
    .count({ n: '*' })) as Array<{ n: number | string }>;
  return Number(row?.n ?? 0);
}

/** Where a step's time goes: statements, commits, SQL time and CPU per step. */
function printBreakdown(
  queries: QueryProfile,
  steps: number,
  wakeMs: number,
  workers: number,
  cpu: { bench: number; database: number },
): void {
  const per = (value: number) => (steps > 0 ? value / steps : Number.NaN);
  const loopMs = wakeMs * workers;
  log(
    `  per step: ${per(queries.statements).toFixed(3)} SQL statements, ${per(queries.commits).toFixed(4)} commits; wall ${per(loopMs).toFixed(2)} ms of an advance loop, of which inside the driver ${per(queries.ms).toFixed(2)} ms (commits ${per(queries.commitMs).toFixed(2)} ms, ${(queries.commitMs / Math.max(1, queries.commits)).toFixed(2)} ms each)`,
  );
  log(
    `  CPU per step: this process (engine, driver${SERVER ? '' : ', SQLite'}) ${per(cpu.bench * 1000).toFixed(2)} ms` +
      (SERVER ? `, mariadbd ${per(cpu.database * 1000).toFixed(2)} ms` : '') +
      `; busy: this process ${((100 * cpu.bench * 1000) / wakeMs).toFixed(0)}% of a core` +
      (SERVER ? `, mariadbd ${((100 * cpu.database * 1000) / wakeMs).toFixed(0)}%` : ''),
  );
  log(`  statements by time (count per step, ms per step, ms each):`);
  for (const shape of queries.shapes.slice(0, 14))
    log(
      `    ${per(shape.count).toFixed(4).padStart(6)}  ${per(shape.ms).toFixed(3).padStart(7)} ms  ${(shape.ms / shape.count).toFixed(3).padStart(7)} ms  ${shape.sql}`,
    );
  if (queries.shapes.length > 14) log(`    ... ${queries.shapes.length - 14} more shapes`);
}

function printSummary(): void {
  log(`\n## Summary (${SERVER ? 'MariaDB + Redis' : 'SQLite'})`);
  const header = {
    part: 'measure (issue 37)',
    setting: 'setting',
    goal: 'goal',
    before: 'before',
    figure: 'now',
    target: 'now / goal (higher is better)',
  };
  const rows = [header, ...summary];
  const keys = ['part', 'setting', 'goal', 'before', 'figure', 'target'] as const;
  const widths = Object.fromEntries(keys.map((k) => [k, Math.max(...rows.map((r) => r[k].length))])) as Record<
    (typeof keys)[number],
    number
  >;
  for (const [i, r] of rows.entries()) {
    log(`| ${keys.map((k) => r[k].padEnd(widths[k])).join(' | ')} |`);
    if (i === 0) log(`|${keys.map((k) => '-'.repeat(widths[k] + 2)).join('|')}|`);
  }
}

log(await conditions());
try {
  if (PARTS.includes('events')) await eventsPart();
  if (PARTS.includes('runs')) await runsPart();
} finally {
  await cleanUp();
  printSummary();
}
