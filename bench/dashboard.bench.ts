/**
 * The dashboard: what a browser downloads, and the emails list at scale. Prints figures only.
 *
 *   npm run bench:dashboard                     (SQLite in a temporary directory, 200,000 emails)
 *   MAILROOM_BENCH_DATABASE_URL=mysql://root@127.0.0.1:3306 npm run bench:dashboard   (MariaDB, 1,000,000)
 *   DASHBOARD_BENCH_ROWS (the team's emails), DASHBOARD_BENCH_REPEAT (timed loads, default 7)
 *
 * 1. JavaScript per page, gzip, from the build's chunk graph (dist/web/.vite/manifest.json): the
 *    entry with its static imports, plus the page's chunk with its own; the goal is under 200 KB
 *    for sign-in plus the emails list.
 * 2. The same journey in Chromium (sign-in page, then the emails list): the bytes of JavaScript the
 *    browser really received (encoded body sizes, the server's gzip copies).
 * 3. A team with DASHBOARD_BENCH_ROWS emails beside one with 100 (the peer, same process): the
 *    server time of the list call the page makes (the API's own request histogram) and the time
 *    from navigation to the first row drawn in Chromium, median of the timed loads, and the ratio.
 *    The goal: the list call under 50 ms at 1,000,000 emails on MariaDB.
 */
import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { startApiServer } from '../api/server.js';
import { defaultDashboardDir } from '../api/dashboard/dashboard-files.js';
import { createRuntime } from '../app/runtime.js';
import { loadConfig } from '../lib/config/load-config.js';
import { createLogger } from '../lib/logger.js';
import { benchAppliance, seedEmails } from './email-seed.js';

const SERVER = process.env.MAILROOM_BENCH_DATABASE_URL || null;
const ROWS = Number(process.env.DASHBOARD_BENCH_ROWS ?? (SERVER ? 1_000_000 : 200_000));
const REPEAT = Number(process.env.DASHBOARD_BENCH_REPEAT ?? 7);
const CHROMIUM = process.env.MAILROOM_CHROMIUM ?? '/usr/bin/chromium';
// MAILROOM_DASHBOARD_DIR: another build (one that a concurrent `npm run build` does not replace).
const web = process.env.MAILROOM_DASHBOARD_DIR || defaultDashboardDir();
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

type ManifestChunk = { file: string; src?: string; isEntry?: boolean; imports?: string[]; dynamicImports?: string[] };

/** Part 1: gzip bytes of JavaScript each page needs, from the chunk graph. */
function javascriptPerPage(): Map<string, number> {
  const manifest = JSON.parse(readFileSync(join(web, '.vite', 'manifest.json'), 'utf8')) as Record<
    string,
    ManifestChunk
  >;
  const gzipSize = (file: string) => statSync(join(web, `${file}.gz`)).size;
  const closure = (key: string, into: Set<string>) => {
    if (into.has(key)) return into;
    into.add(key);
    for (const imported of manifest[key]?.imports ?? []) closure(imported, into);
    return into;
  };
  const entry = Object.keys(manifest).find((key) => manifest[key]!.isEntry)!;
  const base = closure(entry, new Set());
  const pages = new Map<string, number>();
  const sum = (keys: Set<string>) => [...keys].reduce((total, key) => total + gzipSize(manifest[key]!.file), 0);
  pages.set('(entry: router, React, the shell)', sum(base));
  for (const key of Object.keys(manifest)
    .filter((k) => k.endsWith('.page.tsx'))
    .sort()) {
    const page = closure(key, new Set(base));
    pages.set(key.replace(/^src\/pages\//, ''), sum(page));
  }
  return pages;
}

async function main() {
  statSync(join(web, 'build-stamp.json'));
  console.log(`dashboard build: ${web}`);
  const pages = javascriptPerPage();
  console.log('\n1. JavaScript a page needs (gzip, entry included)');
  for (const [page, bytes] of pages) console.log(`  ${page.padEnd(44)} ${kb(bytes).padStart(10)}`);
  const signIn = pages.get('auth/login.page.tsx')!;
  const emails = pages.get('emails/emails-list.page.tsx')!;
  const entry = pages.get('(entry: router, React, the shell)')!;
  const journey = signIn + emails - entry;
  console.log(
    `  sign-in + emails list: ${kb(journey)} (goal under 200 KB: ${journey < 200 * 1024 ? 'met' : 'missed'})`,
  );

  const { dir, database, env } = benchAppliance('dashboard');
  env.MAILROOM_DASHBOARD_DIR = web;
  const runtime = await createRuntime(loadConfig(env), { logger: createLogger('silent') });
  // The list call's server time: what the API's request histogram observes for GET /emails.
  const listTimes: number[] = [];
  const histogram = runtime.metrics.apiRequestSeconds;
  const observe = histogram.observe.bind(histogram);
  histogram.observe = ((labels: { method?: string; route?: string }, seconds: number) => {
    if (labels.method === 'GET' && labels.route === '/emails') listTimes.push(seconds * 1000);
    return observe(labels as never, seconds);
  }) as typeof histogram.observe;
  const api = await startApiServer(runtime);
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update'],
  });
  try {
    const big = await runtime.services.teams.create({ name: 'Big', planCode: 'unlimited' });
    const small = await runtime.services.teams.create({ name: 'Small', planCode: 'unlimited' });
    console.log(`\ndatabase: ${SERVER ? 'MariaDB/MySQL' : 'SQLite'}; ${ROWS.toLocaleString('en')} emails vs 100`);
    await seedEmails(runtime, big.id, ROWS);
    await seedEmails(runtime, small.id, 100);

    const signedIn = async (teamId: string, email: string) => {
      const { user } = await runtime.services.accounts.createByOperator({ email, teamId, role: 'owner' });
      const issued = await runtime.services.userSessions.issue(user, teamId);
      const context = await browser.newContext({ baseURL: api.url });
      await context.addCookies([{ name: 'mailroom_session', value: issued.token, url: api.url, httpOnly: true }]);
      return context.newPage();
    };

    console.log('\n2. In Chromium: JavaScript received for the sign-in page, then the emails list');
    const visitor = await (await browser.newContext({ baseURL: api.url })).newPage();
    const received = await scriptBytes(visitor, '/dashboard/login', 'h1');
    console.log(`  sign-in page: ${kb(received)}`);
    const reader = await signedIn(small.id, 'reader@example.test');
    const listed = await scriptBytes(reader, '/dashboard/emails', 'table tbody tr');
    console.log(`  emails list (cold cache): ${kb(listed)}`);

    console.log(`\n3. The emails list's first page (median of ${REPEAT}; first load discarded)`);
    const measure = async (page: Page) => {
      const server: number[] = [];
      const drawn: number[] = [];
      for (let i = 0; i <= REPEAT; i++) {
        listTimes.length = 0;
        await page.goto('/dashboard/emails', { waitUntil: 'commit' });
        await page.waitForSelector('table tbody tr');
        const ms = (await page.evaluate('performance.now()')) as number;
        if (i === 0) continue;
        drawn.push(ms);
        server.push(listTimes[0] ?? NaN);
      }
      const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;
      return { server: median(server), drawn: median(drawn) };
    };
    const atBig = await measure(await signedIn(big.id, 'big@example.test'));
    const atSmall = await measure(reader);
    console.log(
      `  ${''.padEnd(34)} ${`${ROWS.toLocaleString('en')} emails`.padEnd(18)} ${'100 emails'.padEnd(12)} ratio`,
    );
    const row = (label: string, a: number, b: number) =>
      console.log(
        `  ${label.padEnd(34)} ${`${a.toFixed(1)} ms`.padEnd(18)} ${`${b.toFixed(1)} ms`.padEnd(12)} ${(a / b).toFixed(2)}`,
      );
    row('GET /emails (server time)', atBig.server, atSmall.server);
    row('navigation to first row drawn', atBig.drawn, atSmall.drawn);
    console.log(
      `  goal: the list call under 50 ms at 1,000,000 on MariaDB (${SERVER ? '' : 'this run is SQLite; '}${atBig.server < 50 ? 'under' : 'over'} here)`,
    );
  } finally {
    await browser.close();
    await api.close();
    if (SERVER) await runtime.db.knex.raw(`DROP DATABASE IF EXISTS \`${new URL(database).pathname.slice(1)}\``);
    await runtime.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Loads `path` with the cache empty and sums the encoded bytes of every script received. */
async function scriptBytes(page: Page, path: string, ready: string): Promise<number> {
  const sizes: Promise<number>[] = [];
  page.on('response', (response) => {
    if (response.request().resourceType() === 'script')
      sizes.push(
        response
          .request()
          .sizes()
          .then((s) => s.responseBodySize),
      );
  });
  await page.goto(path);
  await page.waitForSelector(ready);
  return (await Promise.all(sizes)).reduce((a, b) => a + b, 0);
}

await main();
