/**
 * GET /emails at scale: the first page, filtered pages and a deep page (by cursor) of a team
 * with EMAILS_LIST_ROWS emails (default 1,000,000), beside the same requests for a team with 100
 * emails in the same database, with the ratio. The list must not slow down with the team's size
 * (keyset pagination, one index range per page; see core/sending/emails/email-list-filter.ts).
 * Prints figures only.
 *
 *   npm run bench:emails-list            (SQLite in a temporary directory)
 *   MAILROOM_BENCH_DATABASE_URL=mysql://root@127.0.0.1:3306 npm run bench:emails-list   (a fresh MariaDB database)
 *   EMAILS_LIST_ROWS (default 1,000,000), EMAILS_LIST_REPEAT (default 30 timed calls per request)
 *
 * Emails are seeded straight into the database (multi-row INSERTs through the repository), as
 * acceptance writes them: ids are UUIDv7 made at each email's creation time, one a few seconds
 * apart over the last months. Each request's server time is what the API's own request-duration
 * histogram observes (the pipeline, from route to answer), median and p95 of the timed calls
 * after warm-up calls; statements are the SQL statements knex ran during one request.
 */
import { rmSync } from 'node:fs';
import { startApiServer } from '../api/server.js';
import { createRuntime } from '../app/runtime.js';
import { loadConfig } from '../lib/config/load-config.js';
import { createLogger } from '../lib/logger.js';
import { benchAppliance, SPACING_MS, seedEmails as seed } from './email-seed.js';

const ROWS = Number(process.env.EMAILS_LIST_ROWS ?? 1_000_000);
const SMALL = 100;
const REPEAT = Number(process.env.EMAILS_LIST_REPEAT ?? 30);
const { dir, database, server: SERVER, env } = benchAppliance('emails-list');

type Measure = { medianMs: number; p95Ms: number; statements: number; rows: number };

async function main() {
  const runtime = await createRuntime(loadConfig(env), { logger: createLogger('silent') });
  // The API's own request duration (the pipeline, route to answer) is what is timed.
  const observed: number[] = [];
  const histogram = runtime.metrics.apiRequestSeconds;
  const observe = histogram.observe.bind(histogram);
  histogram.observe = ((labels: never, seconds: number) => {
    observed.push(seconds * 1000);
    return observe(labels, seconds);
  }) as typeof histogram.observe;
  let statements = 0;
  runtime.db.knex.on('query', () => statements++);
  const api = await startApiServer(runtime);
  try {
    const big = await runtime.services.teams.create({ name: 'Big', planCode: 'unlimited' });
    const small = await runtime.services.teams.create({ name: 'Small', planCode: 'unlimited' });
    const bigKey = (await runtime.services.apiKeys.create(big.id, { name: 'b', permission: 'full_access' })).token;
    const smallKey = (await runtime.services.apiKeys.create(small.id, { name: 's', permission: 'full_access' })).token;
    console.log(`database: ${SERVER ? 'MariaDB/MySQL' : 'SQLite'}; ${ROWS.toLocaleString('en')} emails vs ${SMALL}`);
    const bigDomains = await seed(runtime, big.id, ROWS);
    const smallDomains = await seed(runtime, small.id, SMALL);

    async function measure(token: string, path: string, repeat: number): Promise<Measure> {
      const times: number[] = [];
      let perRequest = 0;
      let rows = 0;
      for (let i = 0; i < repeat + 3; i++) {
        observed.length = 0;
        const before = statements;
        const res = await fetch(`${api.url}${path}`, {
          headers: { authorization: `Bearer ${token}`, 'user-agent': 'mailroom-bench' },
        });
        const body = (await res.json()) as { data?: unknown[] };
        if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
        rows = body.data?.length ?? 0;
        perRequest = statements - before;
        if (i >= 3) times.push(observed[0] ?? NaN);
      }
      times.sort((a, b) => a - b);
      return {
        medianMs: times[Math.floor(times.length / 2)]!,
        p95Ms: times[Math.min(times.length - 1, Math.floor(times.length * 0.95))]!,
        statements: perRequest,
        rows,
      };
    }

    /** The id in the middle of a team's list: the cursor of a deep page. */
    async function middleId(teamId: string, count: number): Promise<string> {
      const row = (await runtime.db
        .knex('emails')
        .where({ team_id: teamId })
        .orderBy('id', 'desc')
        .offset(Math.floor(count / 2))
        .first('id')) as { id: string };
      return row.id;
    }
    /** A date-only window: a day around the middle of the team's time span. */
    const window = (count: number) => {
      const middle = Date.now() - 60_000 - (count / 2) * SPACING_MS;
      return `created_after=${new Date(middle - 12 * 3600_000).toISOString()}&created_before=${new Date(middle + 12 * 3600_000).toISOString()}`;
    };
    // `q` scans (no index can serve a substring): timed fewer times.
    const cases: Array<{ name: string; path: (team: 'big' | 'small') => Promise<string>; scan?: true }> = [
      { name: 'first page', path: async () => '/emails?limit=20' },
      { name: 'last_event=bounced', path: async () => '/emails?limit=20&last_event=bounced' },
      {
        name: 'domain_id',
        path: async (team) => `/emails?limit=20&domain_id=${(team === 'big' ? bigDomains : smallDomains)[1]}`,
      },
      {
        name: 'created_before (the middle)',
        path: async (team) => {
          const count = team === 'big' ? ROWS : SMALL;
          const middle = new Date(Date.now() - 60_000 - (count / 2) * SPACING_MS).toISOString();
          return `/emails?limit=20&created_before=${middle}`;
        },
      },
      {
        name: 'created_after + created_before (a day)',
        path: async (team) => `/emails?limit=20&${window(team === 'big' ? ROWS : 86_400_000 / SPACING_MS)}`,
      },
      {
        name: 'last_event=bounced + created_before',
        path: async (team) => {
          const count = team === 'big' ? ROWS : SMALL;
          const middle = new Date(Date.now() - 60_000 - (count / 2) * SPACING_MS).toISOString();
          return `/emails?limit=20&last_event=bounced&created_before=${middle}`;
        },
      },
      {
        name: 'deep page (after = the middle id)',
        path: async (team) =>
          `/emails?limit=20&after=${await middleId(team === 'big' ? big.id : small.id, team === 'big' ? ROWS : SMALL)}`,
      },
      { name: 'q, common (a subject word)', path: async () => '/emails?limit=20&q=shipped', scan: true },
      { name: 'q, rare (one recipient)', path: async () => '/emails?limit=20&q=customer7%40example7.net', scan: true },
    ];
    const pad = (text: string, n: number) => text.padEnd(n);
    console.log(
      `\n${pad('GET /emails?...', 40)} ${pad(`at ${ROWS.toLocaleString('en')}: median / p95 ms`, 32)} ${pad(`at ${SMALL}: median / p95 ms`, 26)} ratio  statements  rows`,
    );
    for (const c of cases) {
      const repeat = c.scan ? Math.min(REPEAT, 5) : REPEAT;
      const atBig = await measure(bigKey, await c.path('big'), repeat);
      const atSmall = await measure(smallKey, await c.path('small'), repeat);
      console.log(
        `${pad(c.name, 40)} ${pad(`${atBig.medianMs.toFixed(2)} / ${atBig.p95Ms.toFixed(2)}`, 32)} ${pad(`${atSmall.medianMs.toFixed(2)} / ${atSmall.p95Ms.toFixed(2)}`, 26)} ${pad((atBig.medianMs / atSmall.medianMs).toFixed(2), 6)} ${pad(`${atBig.statements} / ${atSmall.statements}`, 11)} ${atBig.rows} / ${atSmall.rows}`,
      );
    }
  } finally {
    await api.close();
    // EMAILS_LIST_KEEP=1 keeps the seeded database (to EXPLAIN its queries by hand).
    if (process.env.EMAILS_LIST_KEEP === '1') console.log(`kept: ${database}`);
    else if (SERVER) await runtime.db.knex.raw(`DROP DATABASE IF EXISTS \`${new URL(database).pathname.slice(1)}\``);
    await runtime.close();
    if (process.env.EMAILS_LIST_KEEP !== '1') rmSync(dir, { recursive: true, force: true });
  }
}

await main();
