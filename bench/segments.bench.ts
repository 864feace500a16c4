/**
 * Segment benchmark: contacts with five properties (bench/contact-seed.ts: plan, seats, country,
 * score, vip) seeded straight into a fresh database as rows written before 20261128-0300 were
 * (folded_value NULL, the old indexes), then the upgrade's online backfill (20261128-0301) and
 * index build (20261128-0302) timed, then segment counts through SegmentService.metrics. Prints
 * figures and the goals; asserts nothing.
 *
 *   node --import tsx bench/segments.bench.ts                      (SQLite in a temporary directory)
 *   MAILROOM_BENCH_DATABASE_URL=mysql://root@127.0.0.1:3306 node --import tsx bench/segments.bench.ts
 *   SEGMENTS_CONTACTS (default 1,000,000), SEGMENTS_REPEAT (timed counts per filter, default 5),
 *   SEGMENTS_OLD=1 also times the filter as the compiler wrote it before (correlated EXISTS with
 *   LOWER(), through the old (property_id, string_value) index) on the same data.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRuntime } from '../app/runtime.js';
import { backfillFolded } from '../db/migrations/20261128-0301-backfill-property-values-folded.js';
import { indexPropertyValuesForSegments } from '../db/migrations/20261128-0302-index-property-values-for-segments.js';
import { dialectOfKnex } from '../db/dialect.js';
import { loadConfig } from '../lib/config/load-config.js';
import { createLogger } from '../lib/logger.js';
import { seedContacts } from './contact-seed.js';
import { createLoad } from './contact-create-load.js';
import { startMailroomProcess } from './mailroom-process.js';
import { CREATE_GOAL, SEGMENT_GOALS, printGoal } from './audience-goals.js';

const CONTACTS = Number(process.env.SEGMENTS_CONTACTS ?? 1_000_000);
const REPEAT = Number(process.env.SEGMENTS_REPEAT ?? 5);
const SERVER = process.env.MAILROOM_BENCH_DATABASE_URL || null;

const dir = mkdtempSync(join(tmpdir(), 'mailroom-bench-segments-'));
// A database of this process's own: two benchmarks running at once never share one.
const database = SERVER
  ? `${SERVER.replace(/\/+$/, '')}/mailroom_bench_segments_${process.pid}`
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
const CREATES = Number(process.env.SEGMENTS_CREATES ?? 4000);
const CONCURRENCY = Number(process.env.SEGMENTS_CONCURRENCY ?? 32);

/** The audience bench's filter (two properties and the address), and two more shapes. */
const FILTERS: Array<{ name: string; filter: object }> = [
  {
    name: '3 conditions (plan eq, seats gte, email contains)',
    filter: {
      all: [
        { field: 'properties.plan', op: 'eq', value: 'pro' },
        { field: 'properties.seats', op: 'gte', value: 100 },
        { field: 'email', op: 'contains', value: '@example1' },
      ],
    },
  },
  {
    name: '3 property conditions (plan in, country neq, score lt)',
    filter: {
      all: [
        { field: 'properties.plan', op: 'in', value: ['Pro', 'starter'] },
        { field: 'properties.country', op: 'neq', value: 'de' },
        { field: 'properties.score', op: 'lt', value: 50 },
      ],
    },
  },
  {
    name: 'any of 2 (vip eq, plan contains)',
    filter: {
      any: [
        { field: 'properties.vip', op: 'eq', value: 'TRUE' },
        { field: 'properties.plan', op: 'contains', value: 'ENTER' },
      ],
    },
  },
];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main() {
  const runtime = await createRuntime(loadConfig(env), { logger: createLogger('silent') });
  const { knex } = runtime.db;
  const dialect = dialectOfKnex(knex);
  try {
    const team = await runtime.services.teams.create({ name: 'Segments bench', planCode: 'unlimited' });
    // Back to the indexes rows had before the upgrade; the seed leaves folded_value NULL.
    await indexPropertyValuesForSegments.down(knex);
    await seedContacts(runtime, team.id, CONTACTS, { fiveProperties: true, unfolded: true });
    const rows = CONTACTS * 5;

    if (process.env.SEGMENTS_OLD === '1') await timeOldFilter(runtime, team.id);

    let started = performance.now();
    let last = 0;
    const folded = await backfillFolded(knex, {
      onBatch: ({ scanned }) => {
        if (scanned - last >= 500_000) {
          last = scanned;
          process.stdout.write(`\r  backfill: ${scanned.toLocaleString('en')} rows scanned`);
        }
      },
    });
    const backfill = (performance.now() - started) / 1000;
    process.stdout.write('\r');
    console.log(
      `backfill (20261128-0301): ${folded.toLocaleString('en')} string values of ${rows.toLocaleString('en')} rows in ${backfill.toFixed(1)} s (${Math.round(rows / backfill).toLocaleString('en')} rows/s), batches of 10,000 rows`,
    );
    started = performance.now();
    await indexPropertyValuesForSegments.up(knex);
    console.log(`index build (20261128-0302): ${((performance.now() - started) / 1000).toFixed(1)} s`);

    for (const { name, filter } of FILTERS) {
      const segment = await runtime.services.segments.create(team.id, { name, filter });
      let metrics = await runtime.services.segments.metrics(team.id, segment.id); // warm
      const timings: number[] = [];
      for (let i = 0; i < REPEAT; i++) {
        const t0 = performance.now();
        metrics = await runtime.services.segments.metrics(team.id, segment.id);
        timings.push(performance.now() - t0);
      }
      console.log(
        `segment count, ${name}: ${metrics.contacts.toLocaleString('en')} of ${CONTACTS.toLocaleString('en')} match; median ${median(timings).toFixed(0)} ms, best ${Math.min(...timings).toFixed(0)} ms`,
      );
      if (name.startsWith('3 conditions')) printGoal(SEGMENT_GOALS[dialect], median(timings));
    }
    if (CREATES > 0) await timeCreates(team.id);
  } finally {
    if (SERVER) await knex.raw(`DROP DATABASE IF EXISTS \`${new URL(database).pathname.slice(1)}\``);
    await runtime.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** POST /contacts at CONCURRENCY clients against a `mailroom api` process, on the seeded team. */
async function timeCreates(teamId: string): Promise<void> {
  const runtime = await createRuntime(loadConfig(env), { logger: createLogger('silent') });
  const { token } = await runtime.services.apiKeys.create(teamId, { name: 'bench', permission: 'full_access' });
  await runtime.close();
  const api = await startMailroomProcess(env);
  try {
    const latencies = await createLoad(api.url, token, { requests: CREATES, concurrency: CONCURRENCY });
    const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
    console.log(
      `contact create at ${CONCURRENCY} clients (${CREATES} requests, ${CONTACTS.toLocaleString('en')} contacts): p50 ${at(0.5).toFixed(1)} ms, p99 ${at(0.99).toFixed(1)} ms`,
    );
    printGoal(CREATE_GOAL, at(0.99));
  } finally {
    await api.stop();
  }
}

/** The first filter as compiled before this work: one correlated EXISTS with LOWER() per property condition. */
async function timeOldFilter(runtime: Awaited<ReturnType<typeof createRuntime>>, teamId: string): Promise<void> {
  const { knex } = runtime.db;
  const ids = Object.fromEntries(
    (
      (await knex('contact_properties').where({ team_id: teamId }).select('id', 'key')) as Array<{
        id: string;
        key: string;
      }>
    ).map((p) => [p.key, p.id]),
  );
  const sql = `SELECT COUNT(*) AS n, SUM(unsubscribed) AS u FROM contacts WHERE team_id = ?
    AND EXISTS (SELECT pv.contact_id FROM contact_property_values pv WHERE pv.contact_id = contacts.id AND pv.property_id = ?
                AND pv.string_value IS NOT NULL AND LOWER(pv.string_value) = LOWER(?))
    AND EXISTS (SELECT pv.contact_id FROM contact_property_values pv WHERE pv.contact_id = contacts.id AND pv.property_id = ?
                AND pv.number_value >= ?)
    AND email_normalized IS NOT NULL AND email_normalized LIKE ? ESCAPE '!'`;
  const t0 = performance.now();
  await knex.raw(sql, [teamId, ids.plan!, 'pro', ids.seats!, 100, '%@example1%']);
  console.log(
    `segment count as compiled before (correlated EXISTS, LOWER()): ${(performance.now() - t0).toFixed(0)} ms (one run)`,
  );
}

await main();
