/**
 * Durability benchmark (issue 22): exactly one email per Idempotency-Key while the appliance is
 * killed with SIGKILL mid-send, and at-least-once delivery across those kills.
 *
 * Setup: a database mailroom_durability_<pid> on MariaDB (dropped at the end); `mailroom start`
 * (API, SMTP submission, scheduler and MTA in one process) as a real process in a process group
 * of its own; the MTA delivers to a loopback SMTP sink (127.0.0.10) that records every message it
 * receives (Message-ID, arrival time). DURABILITY_CONCURRENCY clients POST /emails, each send
 * with a unique Idempotency-Key (also the subject), and retry that key (same key, same body)
 * until the answer is definitive (200 with an id, or a 4xx other than 409) whenever the
 * connection fails or the answer is 409 or 5xx. DURABILITY_KILLS times, every
 * DURABILITY_INTERVAL_MS, the whole process group gets SIGKILL and the appliance is restarted at
 * once. After the last kill the clients stop, the queue drains (or DURABILITY_DRAIN_S runs out),
 * then everything is counted from the emails, idempotency_keys and deliveries tables.
 *
 * Printed: keys sent; lost (a key answered 200 whose email does not exist, or a key that ends
 * with no email) and second emails (keys with more than one email row; emails carry no key
 * column, so they are matched by subject, and cross-checked against the key's stored answer in
 * idempotency_keys); duplicate deliveries (messages the sink received more than once) in all and
 * per kill, next to what the MTA had in flight at each kill and its bound mta.concurrency;
 * seconds of 409 concurrent_idempotent_requests after each restart (restart to the last 409 any
 * client received, max and mean); how long each restart took until the API answered.
 *
 * Must be 0: lost, second emails, answers naming another email than the key's, stored answers
 * disagreeing with the emails, claims still in flight at the end, emails never delivered.
 * Duplicate deliveries are expected (at-least-once): at most what was in flight per kill.
 *
 *   npm run bench:durability        (node --import tsx bench/durability.bench.ts)
 *
 * Needs MariaDB/MySQL on 127.0.0.1:3306 as root without a password (BENCH_MYSQL_URL overrides).
 * Env knobs: DURABILITY_KILLS (5), DURABILITY_INTERVAL_MS (4000, between kills),
 * DURABILITY_CONCURRENCY (16 clients), DURABILITY_DRAIN_S (60, longest wait for the queue to
 * drain), DURABILITY_MTA_CONCURRENCY (unset: the configured default), DURABILITY_MTA_LEASE_MS
 * (10000: how long a killed MTA's claims wait before they are delivered again).
 */
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { SMTPServer } from 'smtp-server';
import { loadConfig } from '../lib/config/load-config.js';
import { TestDnsServer } from '../test/helpers/dns-server.js';
import { seedBenchTeam, spawnAppliance } from './mailroom-process.js';

const KILLS = Number(process.env.DURABILITY_KILLS ?? 5);
const INTERVAL_MS = Number(process.env.DURABILITY_INTERVAL_MS ?? 4000);
const CONCURRENCY = Number(process.env.DURABILITY_CONCURRENCY ?? 16);
const DRAIN_S = Number(process.env.DURABILITY_DRAIN_S ?? 60);
const MTA_LEASE_MS = Number(process.env.DURABILITY_MTA_LEASE_MS ?? 10_000);
const SERVER = process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306';
const SINK_HOST = '127.0.0.10';
/** A receipt this long after a kill still belongs to the killed process (bytes already on the wire). */
const KILL_SLACK_MS = 200;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// --- The receiving side: a loopback SMTP server recording each message's Message-ID and arrival.
type Receipt = { emailId: string; at: number };
const receipts: Receipt[] = [];
const sink = new SMTPServer({
  authOptional: true,
  disabledCommands: ['AUTH', 'STARTTLS'],
  logger: false,
  onData(stream, _session, callback) {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => {
      const data = Buffer.concat(chunks).toString('latin1');
      const end = data.indexOf('\r\n\r\n');
      const header = end < 0 ? data : data.slice(0, end);
      receipts.push({ emailId: /^Message-ID:\s*<([^@>]+)@/im.exec(header)?.[1] ?? 'unknown', at: Date.now() });
      callback();
    });
  },
});
sink.on('error', () => undefined); // a killed MTA resets its connections: expected here
await new Promise<void>((resolve, reject) => {
  sink.once('error', reject);
  sink.listen(0, SINK_HOST, () => resolve());
});
const sinkPort = (sink.server.address() as { port: number }).port;

// --- The appliance's environment.
const database = `mailroom_durability_${process.pid}`;
const dataDir = mkdtempSync(join(tmpdir(), 'mailroom-durability-'));
const dns = await TestDnsServer.start();
dns.add(
  { type: 'MX', name: 'sink.test', exchange: 'mx.sink.test', priority: 10 },
  { type: 'A', name: 'mx.sink.test', address: SINK_HOST },
);
const configFile = join(dataDir, 'mailroom.json');
writeFileSync(
  configFile,
  JSON.stringify({
    mta: {
      hostname: 'mta.mailroom.test',
      port: sinkPort,
      regions: { 'us-east-1': { ips: [{ address: '127.0.0.2', helo: 'out.mailroom.test' }] } },
      pollMs: 50,
      retrySchedule: [1],
      leaseMs: MTA_LEASE_MS,
    },
  }),
);
const env: Record<string, string> = {
  MAILROOM_CONFIG: configFile,
  MAILROOM_ENV: 'test',
  MAILROOM_DATA_DIR: dataDir,
  MAILROOM_DATABASE_URL: `${SERVER}/${database}`,
  MAILROOM_API_HOST: '127.0.0.1',
  MAILROOM_API_PORT: '0',
  MAILROOM_SUBMISSION_PORT: '0',
  MAILROOM_INBOUND_PORT: '0',
  MAILROOM_METRICS_PORT: '0',
  MAILROOM_DNS_SERVERS: dns.address,
  MAILROOM_RATE_LIMIT_PER_SECOND: '100000',
  MAILROOM_LOG_LEVEL: 'info',
  ...(process.env.DURABILITY_MTA_CONCURRENCY
    ? { MAILROOM_MTA_CONCURRENCY: process.env.DURABILITY_MTA_CONCURRENCY }
    : {}),
};
const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
delete childEnv.MAILROOM_REDIS_URL; // rate limits in memory: a kill leaves nothing behind
delete childEnv.MAILROOM_CRASH_POINT;
const mtaConfig = loadConfig(childEnv).mta;

// --- The appliance as a real process in a process group of its own.
let appliance: ChildProcess | null = null;
const errorLines: string[] = [];
let certificateWarnings = 0;

function alive(child: ChildProcess | null): child is ChildProcess {
  return Boolean(child?.pid) && child!.exitCode === null && child!.signalCode === null;
}

function killGroup(child: ChildProcess): void {
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    // the group is gone already
  }
}

/** `mailroom start` in a process group of its own; resolves with the API's URL once it listens. */
function startAppliance(): Promise<string> {
  const { child, ready } = spawnAppliance(
    'start',
    {},
    {
      baseEnv: childEnv,
      detached: true,
      onError: (line) => errorLines.push(line.slice(0, 300)),
      onStderr: (line) => {
        // The submission server's smtp-server warns about its built-in certificate at every start.
        if (line.startsWith('WARNING: smtp-server is using the built-in default TLS certificate'))
          certificateWarnings++;
        else errorLines.push(`stderr: ${line.slice(0, 300)}`);
      },
    },
  );
  appliance = child;
  return ready;
}

async function killAppliance(): Promise<void> {
  const child = appliance!;
  const gone = new Promise<void>((resolve) => (alive(child) ? child.once('exit', () => resolve()) : resolve()));
  killGroup(child);
  await gone;
}

/** Resolves once GET /health answers 200. */
async function waitAnswering(base: string): Promise<void> {
  for (;;) {
    const ok = await fetch(`${base}/health`, { signal: AbortSignal.timeout(2000) }).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) return;
    await sleep(10);
  }
}

const admin = await mysql.createConnection(SERVER);
let db: mysql.Connection | null = null;
let cleanedUp = false;
async function cleanUp(): Promise<void> {
  if (cleanedUp) return;
  cleanedUp = true;
  if (alive(appliance)) await killAppliance();
  await db?.end().catch(() => undefined);
  await admin.query(`DROP DATABASE IF EXISTS \`${database}\``).catch(() => undefined);
  await admin.end().catch(() => undefined);
  await new Promise<void>((resolve) => sink.close(() => resolve()));
  await dns.close();
  rmSync(dataDir, { recursive: true, force: true });
}
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => void cleanUp().finally(() => process.exit(130)));
// Last resort (an uncaught error): never leave the appliance running.
process.once('exit', () => {
  if (alive(appliance)) killGroup(appliance);
});

// --- The clients.
type KeyResult = { key: string; id: string | null; attempts: number; finalStatus: number; finalBody?: unknown };
type Failure = { at: number; kind: 'refused' | 'cut' | 'timeout' };
const results: KeyResult[] = [];
const conflicts: number[] = []; // when a client received 409
const accepted: number[] = []; // when a client received 200
const failures: Failure[] = [];
const otherAnswers = new Map<number, number>(); // 5xx and such, retried
let url = '';
let running = true;
let sequence = 0;

async function post(token: string, key: string): Promise<{ status: number; body: { id?: string } } | null> {
  try {
    const response = await fetch(`${url}/emails`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'idempotency-key': key,
        'user-agent': 'durability-bench',
      },
      body: JSON.stringify({
        from: 'Bench <bench@bench.test>',
        to: 'someone@sink.test',
        subject: key,
        text: `durability ${key}`,
      }),
      signal: AbortSignal.timeout(10_000),
    });
    const body = (await response.json().catch(() => ({}))) as { id?: string };
    return { status: response.status, body };
  } catch (err) {
    const code = (err as { cause?: { code?: string } }).cause?.code;
    const kind = (err as Error).name === 'TimeoutError' ? 'timeout' : code === 'ECONNREFUSED' ? 'refused' : 'cut';
    failures.push({ at: Date.now(), kind });
    return null;
  }
}

/** One client: keys one after another, each retried until it has a definitive answer. */
async function client(token: string): Promise<void> {
  while (running) {
    const key = `dur-${process.pid}-${++sequence}`;
    const result: KeyResult = { key, id: null, attempts: 0, finalStatus: 0 };
    results.push(result);
    for (;;) {
      result.attempts++;
      const answer = await post(token, key);
      if (answer?.status === 200) {
        accepted.push(Date.now());
        result.id = answer.body.id ?? null;
        result.finalStatus = 200;
        break;
      }
      if (answer && answer.status >= 400 && answer.status < 500 && answer.status !== 409) {
        result.finalStatus = answer.status;
        result.finalBody = answer.body;
        break;
      }
      if (answer?.status === 409) conflicts.push(Date.now());
      else if (answer) otherAnswers.set(answer.status, (otherAnswers.get(answer.status) ?? 0) + 1);
      await sleep(100);
    }
  }
}

type Kill = {
  killAt: number;
  restartAt: number;
  listeningMs: number;
  answeringMs: number;
  inFlight: number;
  claimsLeft: number;
};
const kills: Kill[] = [];

try {
  await admin.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
  const token = await seedBenchTeam(env);
  db = await mysql.createConnection(`${SERVER}/${database}`);
  url = await startAppliance();
  await waitAnswering(url);
  const startedAt = Date.now();
  const clients = Array.from({ length: CONCURRENCY }, () => client(token));

  for (let n = 1; n <= KILLS; n++) {
    await sleep(INTERVAL_MS);
    const killAt = Date.now();
    await killAppliance();
    // What the dead process left: deliveries it had claimed (state sending: the most this kill
    // can duplicate) and Idempotency-Key claims in flight (taken over by the retries).
    const [held] = (await db.query(`SELECT COUNT(*) AS n FROM deliveries WHERE state = 'sending'`)) as unknown as [
      Array<{ n: number }>,
    ];
    const [claimed] = (await db.query(
      `SELECT COUNT(*) AS n FROM idempotency_keys WHERE state = 'in_flight'`,
    )) as unknown as [Array<{ n: number }>];
    const restartAt = Date.now();
    url = await startAppliance();
    const listeningMs = Date.now() - restartAt;
    await waitAnswering(url);
    kills.push({
      killAt,
      restartAt,
      listeningMs,
      answeringMs: Date.now() - restartAt,
      inFlight: Number(held[0]!.n),
      claimsLeft: Number(claimed[0]!.n),
    });
    process.stdout.write(
      `kill ${n}: API answering ${Date.now() - restartAt} ms after the restart; ${results.length} keys so far\n`,
    );
  }
  await sleep(INTERVAL_MS);
  running = false;
  await Promise.all(clients);
  const sendSeconds = (Date.now() - startedAt) / 1000;

  // Let the queue drain: every accepted email delivered (or the drain time runs out).
  const drainStarted = Date.now();
  let pendingEmails = 0;
  let pendingDeliveries = 0;
  for (;;) {
    const [e] = (await db.query(
      `SELECT COUNT(*) AS n FROM emails WHERE last_event IN ('queued', 'sent', 'delivery_delayed')`,
    )) as unknown as [Array<{ n: number }>];
    const [d] = (await db.query(
      `SELECT COUNT(*) AS n FROM deliveries WHERE state IN ('queued', 'deferred', 'sending', 'held')`,
    )) as unknown as [Array<{ n: number }>];
    pendingEmails = Number(e[0]!.n);
    pendingDeliveries = Number(d[0]!.n);
    if ((pendingEmails === 0 && pendingDeliveries === 0) || Date.now() - drainStarted > DRAIN_S * 1000) break;
    await sleep(250);
  }
  const drainSeconds = (Date.now() - drainStarted) / 1000;
  await sleep(500); // a receipt in the last settle's round trip

  // --- Count.
  const [emails] = (await db.query(`SELECT id, subject, last_event FROM emails`)) as unknown as [
    Array<{ id: string; subject: string; last_event: string }>,
  ];
  const [claims] = (await db.query(
    `SELECT key_hash, state, response_status, response_body FROM idempotency_keys`,
  )) as unknown as [
    Array<{ key_hash: string; state: string; response_status: number | null; response_body: string | null }>,
  ];
  const [states] = (await db.query(`SELECT state, COUNT(*) AS n FROM deliveries GROUP BY state`)) as unknown as [
    Array<{ state: string; n: number }>,
  ];

  const emailsByKey = new Map<string, string[]>();
  for (const email of emails) emailsByKey.set(email.subject, [...(emailsByKey.get(email.subject) ?? []), email.id]);
  const emailIds = new Set(emails.map((email) => email.id));
  const claimsByHash = new Map(claims.map((claim) => [claim.key_hash, claim]));
  const answered = results.filter((r) => r.finalStatus === 200);
  const refused = results.filter((r) => r.finalStatus !== 200);
  const answeredMissing = answered.filter((r) => !r.id || !emailIds.has(r.id));
  const keysWithoutEmail = results.filter((r) => !emailsByKey.has(r.key));
  const secondEmails = [...emailsByKey.entries()].filter(([, ids]) => ids.length > 1);
  const extraRows = secondEmails.reduce((sum, [, ids]) => sum + ids.length - 1, 0);
  const mismatched = answered.filter(
    (r) => r.id && emailIds.has(r.id) && !(emailsByKey.get(r.key) ?? []).includes(r.id),
  );
  const sentKeys = new Set(results.map((r) => r.key));
  const unknownEmails = emails.filter((email) => !sentKeys.has(email.subject));
  // The stored answer of each key (idempotency_keys, written in the email's transaction).
  let storedDisagree = 0;
  let claimsInFlight = 0;
  let claimsMissing = 0;
  for (const r of results) {
    const claim = claimsByHash.get(createHash('sha256').update(r.key).digest('hex'));
    if (!claim) {
      if (r.finalStatus === 200) claimsMissing++;
      continue;
    }
    if (claim.state !== 'done') {
      claimsInFlight++;
      continue;
    }
    const stored = claim.response_body ? ((JSON.parse(claim.response_body) as { id?: string }).id ?? null) : null;
    const own = emailsByKey.get(r.key) ?? [];
    if (
      Number(claim.response_status) === 200 &&
      (stored === null || !own.includes(stored) || (r.id !== null && r.id !== stored))
    )
      storedDisagree++;
  }

  // Deliveries: a message received more than once is a duplicate; its first receipt says which
  // kill interrupted the MTA between the recipient's 250 and the settle commit.
  const byEmail = new Map<string, number[]>();
  for (const receipt of receipts) byEmail.set(receipt.emailId, [...(byEmail.get(receipt.emailId) ?? []), receipt.at]);
  const duplicatesPerKill = kills.map(() => 0);
  let duplicatesNoKill = 0;
  let duplicates = 0;
  for (const times of byEmail.values()) {
    if (times.length < 2) continue;
    duplicates += times.length - 1;
    const first = Math.min(...times);
    const kill = kills.findIndex((k) => first <= k.killAt + KILL_SLACK_MS);
    if (kill >= 0 && (kill === 0 || first > kills[kill - 1]!.killAt + KILL_SLACK_MS))
      duplicatesPerKill[kill]! += times.length - 1;
    else duplicatesNoKill += times.length - 1;
  }
  const undelivered = emails.filter((email) => !byEmail.has(email.id)).length;
  const unknownReceipts = [...byEmail.keys()].filter((id) => !emailIds.has(id)).length;

  // 409s and accepts in each restart's window (until the next kill).
  const windows = kills.map((k, i) => {
    const until = kills[i + 1]?.killAt ?? Infinity;
    const inWindow = (at: number) => at >= k.restartAt && at < until;
    const c = conflicts.filter(inWindow);
    const firstAccept = accepted.filter(inWindow).reduce((min, at) => Math.min(min, at), Infinity);
    const cut = failures.filter(
      (f) => f.kind === 'cut' && f.at >= k.killAt - KILL_SLACK_MS && f.at < k.restartAt + k.answeringMs,
    ).length;
    return {
      conflicts: c.length,
      conflictSeconds: c.length ? (Math.max(...c) - k.restartAt) / 1000 : 0,
      firstAcceptSeconds: (firstAccept - k.restartAt) / 1000,
      cut,
    };
  });
  const conflictsBeforeFirstKill = conflicts.filter((at) => at < (kills[0]?.killAt ?? Infinity)).length;
  const stats = (values: number[], digits = 2) =>
    values.length
      ? `max ${Math.max(...values).toFixed(digits)}, mean ${(values.reduce((a, b) => a + b, 0) / values.length).toFixed(digits)}`
      : 'n/a';
  const count = (kind: Failure['kind']) => failures.filter((f) => f.kind === kind).length;

  const out: string[] = [];
  out.push('');
  out.push(
    `durability: ${KILLS} kills (SIGKILL to the process group of \`mailroom start\`) every ${INTERVAL_MS} ms, ${CONCURRENCY} clients, MariaDB, ${sendSeconds.toFixed(1)} s of sending`,
  );
  out.push(
    `keys sent: ${results.length} (answered 200: ${answered.length}; refused 4xx: ${refused.length}${refused.length ? ` e.g. ${JSON.stringify(refused.slice(0, 3))}` : ''})`,
  );
  out.push(
    `retries: ${results.reduce((sum, r) => sum + r.attempts - 1, 0)} (connection refused ${count('refused')}, cut by a kill ${count('cut')}, timed out ${count('timeout')}, 409 ${conflicts.length}, other answers ${JSON.stringify(Object.fromEntries(otherAnswers))})`,
  );
  out.push(
    `lost: ${answeredMissing.length + keysWithoutEmail.length} (answered ids missing from emails: ${answeredMissing.length}, keys with no email: ${keysWithoutEmail.length})  [must be 0]`,
  );
  out.push(
    `second emails per key: ${secondEmails.length} keys (${extraRows} extra rows); answers naming another email than the key's: ${mismatched.length}; emails for no key: ${unknownEmails.length}  [must be 0]`,
  );
  out.push(
    `idempotency_keys: ${claims.length} rows; stored answer disagreeing with the key's email: ${storedDisagree}; claims still in flight: ${claimsInFlight}; answered keys without a row: ${claimsMissing}  [must be 0]`,
  );
  out.push(
    `emails: ${emails.length}; drained in ${drainSeconds.toFixed(1)} s; still pending: ${pendingEmails} emails, ${pendingDeliveries} deliveries; deliveries by state ${JSON.stringify(Object.fromEntries(states.map((s) => [s.state, Number(s.n)])))}`,
  );
  out.push(
    `sink: ${receipts.length} messages received for ${byEmail.size} emails; emails never received: ${undelivered}  [must be 0]; unknown Message-IDs: ${unknownReceipts}`,
  );
  out.push(
    `duplicate deliveries: ${duplicates} in all (at-least-once), per kill [${duplicatesPerKill.join(', ')}], ${stats(duplicatesPerKill, 1)}; not after a kill: ${duplicatesNoKill}`,
  );
  out.push(
    `  deliveries in state sending after each kill (claims of the killed MTA, plus an earlier kill's until mta.leaseMs): [${kills.map((k) => k.inFlight).join(', ')}]; bound mta.concurrency = ${mtaConfig.concurrency} (mta.leaseMs ${mtaConfig.leaseMs})`,
  );
  out.push(
    `409 concurrent_idempotent_requests: ${conflicts.length} answers (${conflictsBeforeFirstKill} before the first kill); per restart [${windows.map((w) => w.conflicts).join(', ')}]`,
  );
  out.push(
    `  seconds from restart to the last 409: [${windows.map((w) => w.conflictSeconds.toFixed(2)).join(', ')}], ${stats(windows.map((w) => w.conflictSeconds))}`,
  );
  out.push(
    `requests cut by each kill: [${windows.map((w) => w.cut).join(', ')}]; Idempotency-Key claims the killed process left in flight: [${kills.map((k) => k.claimsLeft).join(', ')}]`,
  );
  out.push(
    `restart until the API listened: ${stats(kills.map((k) => k.listeningMs / 1000))} s; until GET /health answered: ${stats(kills.map((k) => k.answeringMs / 1000))} s; until the first 200 on POST /emails: ${stats(windows.map((w) => w.firstAcceptSeconds))} s`,
  );
  out.push(
    `error log lines: ${errorLines.length}${errorLines.length ? `\n  ${errorLines.slice(0, 8).join('\n  ')}` : ''}${certificateWarnings ? ` (smtp-server default-certificate warnings from the submission server, not shown: ${certificateWarnings})` : ''}`,
  );
  if (
    answeredMissing.length ||
    keysWithoutEmail.length ||
    secondEmails.length ||
    mismatched.length ||
    storedDisagree ||
    claimsInFlight
  ) {
    out.push('DETAILS (must be 0 above):');
    for (const r of [...answeredMissing, ...keysWithoutEmail].slice(0, 5))
      out.push(`  lost ${JSON.stringify(r)} emails=${JSON.stringify(emailsByKey.get(r.key) ?? [])}`);
    for (const [key, ids] of secondEmails.slice(0, 5))
      out.push(`  second email: ${key} -> ${ids.join(', ')} (answered ${results.find((r) => r.key === key)?.id})`);
    for (const r of mismatched.slice(0, 5))
      out.push(`  mismatched ${JSON.stringify(r)} emails=${JSON.stringify(emailsByKey.get(r.key) ?? [])}`);
  }
  console.log(out.join('\n'));
  process.exitCode =
    answeredMissing.length +
      keysWithoutEmail.length +
      secondEmails.length +
      mismatched.length +
      storedDisagree +
      claimsInFlight >
    0
      ? 1
      : 0;
} finally {
  await cleanUp();
}
