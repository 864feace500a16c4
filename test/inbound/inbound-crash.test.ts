import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import t from 'tap';
import { createRuntime } from '../../app/runtime.js';
import { storedRaw } from '../helpers/received-mail.js';
import { loadConfig } from '../../lib/config/load-config.js';
import { createLogger } from '../../lib/logger.js';
import { TestDnsServer } from '../helpers/dns-server.js';
import {
  endHaraka,
  freeTcpPort,
  harakaPidFile,
  harakaRunning,
  harakasUnder,
  portInUse,
  spawnInbound,
  stopInbound,
  waitUntil,
  type InboundProcess,
} from '../helpers/inbound-process.js';
import { applianceProcessEnv } from '../helpers/process-env.js';
import { receivingDomain } from '../helpers/received-mail.js';
import { createTestDatabase } from '../helpers/test-database.js';
import type { TestApp } from '../helpers/test-app.js';

/**
 * `mailroom inbound` is killed (SIGKILL) while several SMTP clients are sending to it: every
 * message that got its 250 ("queued as <id>") is stored (its row and its raw message on disk),
 * and a restarted process ends the Haraka the dead one left behind, takes the port and accepts
 * mail again.
 *
 * What is asserted about messages that did not get a 250: a message may be stored although its
 * client never saw the 250 (the process died after the commit, before the answer), but only if
 * that client saw an error for it (it retries, as any MTA does after a 4xx or a dropped
 * connection). So: rows = the 250s + (stored messages whose client saw an error), one row each,
 * and no row for a message that was never attempted.
 */
const CLIENTS = 8;
/** The kill comes when this many 250s have been seen, with the other clients mid-message. */
const KILL_AFTER_250S = 40;
const AFTER_RESTART = 5;

const dns = await TestDnsServer.start();
const database = createTestDatabase();
const port = await freeTcpPort();
const env: NodeJS.ProcessEnv = { ...applianceProcessEnv(database, dns), MAILROOM_INBOUND_PORT: String(port) };
const runDir = join(database.dataDir, 'inbound');
const processes: InboundProcess[] = [];
const harakaPids = new Set<number>();
const runtime = await createRuntime(loadConfig(env), { logger: createLogger('silent') });
t.teardown(async () => {
  // Gracefully first (a Mailroom stopped with SIGTERM stops its Haraka), then whatever Haraka is left.
  for (const { child } of processes) await stopInbound(child).catch(() => undefined);
  for (const pid of [...harakaPids, harakaPidFile(runDir), ...harakasUnder(runDir)]) endHaraka(pid);
  await runtime.close().catch(() => undefined);
  await database.drop();
  await dns.close();
});

async function startInbound(): Promise<{ process: InboundProcess; harakaPid: number }> {
  const started = spawnInbound(env);
  processes.push(started);
  const { port: listening, harakaPid } = await started.ready;
  harakaPids.add(harakaPid);
  t.equal(listening, port, 'the MX listens on the configured port');
  return { process: started, harakaPid };
}

type Attempt = { subject: string; messageId: string; phase: 'load' | 'after restart' } & (
  { outcome: '250'; id: string; response: string } | { outcome: 'error'; error: string; code: number | undefined }
);

const team = await runtime.services.teams.create({ name: 'Crash inbound', planCode: 'unlimited' });
const domain = await receivingDomain({ runtime } as TestApp, team.id);
const attempts: Attempt[] = [];
/** The process that runs at the end of the first test. */
let second: { process: InboundProcess; harakaPid: number } | undefined;

async function sendOne(client: number, n: number, phase: Attempt['phase']): Promise<Attempt> {
  const subject = `crash ${phase} c${client} m${n} ${randomUUID()}`;
  const messageId = `<${randomUUID()}@sender.test>`;
  // A fresh connection per message (no pool): many SMTP sessions in every state when the kill comes.
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port,
    secure: false,
    ignoreTLS: true,
    connectionTimeout: 20_000,
    greetingTimeout: 20_000,
    socketTimeout: 40_000,
  });
  try {
    const info = await transport.sendMail({
      from: `client${client}@sender.test`,
      to: `inbox${client}@${domain}`,
      subject,
      messageId,
      text: `message ${n} of client ${client}\n${'lorem ipsum dolor sit amet '.repeat(200 + ((client * 37 + n * 11) % 400))}`,
    });
    const id = /queued as ([0-9a-f-]{36})/.exec(info.response)?.[1];
    if (!id) return { subject, messageId, phase, outcome: 'error', error: `no id in ${info.response}`, code: 250 };
    return { subject, messageId, phase, outcome: '250', id, response: info.response };
  } catch (err) {
    const e = err as { message: string; responseCode?: number };
    return { subject, messageId, phase, outcome: 'error', error: e.message, code: e.responseCode };
  } finally {
    transport.close();
  }
}

t.test('SIGKILL under load: every message that got its 250 is stored; the restart takes over', async (t) => {
  const first = await startInbound();
  t.ok(harakaRunning(first.harakaPid), 'Haraka runs as a child process');
  t.equal(harakaPidFile(runDir), first.harakaPid, 'and its pid is in haraka.pid');

  let seen250 = 0;
  let stopping = false;
  const firstExit = new Promise<NodeJS.Signals | null>((resolve) =>
    first.process.child.once('exit', (_code, signal) => resolve(signal)),
  );
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      for (let n = 0; !stopping; n++) {
        const attempt = await sendOne(client, n, 'load');
        attempts.push(attempt);
        if (attempt.outcome === '250' && ++seen250 >= KILL_AFTER_250S && !stopping) {
          stopping = true;
          first.process.child.kill('SIGKILL');
        }
        // Before the kill nothing may fail (a hang guard for a broken setup, not a crash outcome).
        if (!stopping && attempt.outcome === 'error') {
          stopping = true; // the other clients stop too
          throw new Error(`a message failed before the kill: ${attempt.error}`);
        }
      }
    }),
  );
  t.equal(await firstExit, 'SIGKILL', 'the Mailroom process was killed');
  const load = attempts.filter((a) => a.phase === 'load');
  const failed = load.filter((a) => a.outcome === 'error');
  t.comment(`under load: ${load.length} messages, ${load.length - failed.length} got a 250, ${failed.length} failed`);
  for (const a of failed) t.comment(`  failed at the kill: ${a.code ?? '-'} ${a.error}`);
  t.ok(
    failed.every((a) => a.code === undefined || (a.code >= 400 && a.code < 500)),
    'a message cut off by the kill got a 4xx or a dropped connection, never a 5xx',
  );

  // The Haraka child watches a pipe from the Mailroom process (the lifeline plugin): killed with
  // -9, the Mailroom takes Haraka down with it instead of leaving an MX with nowhere to store mail.
  await waitUntil(() => !harakaRunning(first.harakaPid), 'the orphaned Haraka to end by itself');
  t.notOk(harakaRunning(first.harakaPid), 'the Haraka of the killed process ended by itself');

  second = await startInbound();
  t.not(second.harakaPid, first.harakaPid, 'the restarted process runs its own Haraka');
  await waitUntil(() => !harakaRunning(first.harakaPid), 'the orphaned Haraka to end');
  t.notOk(harakaRunning(first.harakaPid), 'the orphaned Haraka from before the kill is gone');
  t.ok(harakaRunning(second.harakaPid), 'the new Haraka runs');
  t.equal(harakaPidFile(runDir), second.harakaPid, 'haraka.pid names the new Haraka');

  const after = await Promise.all(
    Array.from({ length: AFTER_RESTART }, (_, n) => sendOne(n % CLIENTS, n, 'after restart')),
  );
  attempts.push(...after);
  for (const a of after) t.equal(a.outcome, '250', `after the restart: ${a.outcome === '250' ? a.id : a.error}`);

  // Every 250: its row, with its raw message on disk.
  const rows = (await runtime.db
    .knex('received_emails')
    .where({ team_id: team.id })
    .select('id', 'subject', 'raw_blob', 'message_id', 'dropped_reason')) as Array<{
    id: string;
    subject: string;
    raw_blob: string | null;
    message_id: string;
    dropped_reason: string | null;
  }>;
  const accepted = attempts.filter((a): a is Attempt & { outcome: '250' } => a.outcome === '250');
  t.ok(accepted.length >= KILL_AFTER_250S + AFTER_RESTART, `${accepted.length} messages got a 250`);
  t.equal(new Set(accepted.map((a) => a.id)).size, accepted.length, 'every 250 names its own id');
  const missing: string[] = [];
  for (const a of accepted) {
    const mine = rows.filter((r) => r.subject === a.subject);
    if (mine.length !== 1 || mine[0]!.id !== a.id || mine[0]!.raw_blob === null || mine[0]!.dropped_reason !== null) {
      missing.push(`${a.id}: ${mine.length} row(s) ${mine.map((r) => `${r.id} ${r.raw_blob}`).join(',')}`);
      continue;
    }
    const raw = storedRaw(database.dataDir, mine[0]!.raw_blob!)?.toString('utf8') ?? '';
    if (!raw.includes(`Message-ID: ${a.messageId}`) || !raw.includes(a.subject))
      missing.push(`${a.id}: raw message ${raw ? 'not this message' : 'missing'} (${mine[0]!.raw_blob})`);
  }
  t.same(missing, [], 'every message that got a 250 has its row and its raw message (spool record on disk)');

  // Every row: a message that got its 250, or one whose client saw an error (stored, answer lost).
  const bySubject = new Map(attempts.map((a) => [a.subject, a]));
  const storedWithoutReply = rows.filter((r) => bySubject.get(r.subject)?.outcome === 'error');
  const strangers = rows.filter((r) => !bySubject.has(r.subject));
  t.same(strangers, [], 'no row for a message no client sent');
  t.equal(new Set(rows.map((r) => r.subject)).size, rows.length, 'no message stored twice');
  t.equal(
    rows.length,
    accepted.length + storedWithoutReply.length,
    `rows = 250s (${accepted.length}) + messages stored whose client saw an error (${storedWithoutReply.length})`,
  );
  t.ok(storedWithoutReply.length <= failed.length, 'only messages in flight at the kill can be stored without a 250');
  const eventCount = Number(
    (await runtime.db.knex('events').where({ team_id: team.id, type: 'email.received' }).count({ n: '*' }))[0]!.n,
  );
  t.equal(eventCount, rows.length, 'one email.received event per stored message (same transaction)');
});

t.test('an idle Haraka ends with its killed Mailroom, and the next start takes the port', async (t) => {
  if (second) {
    await stopInbound(second.process.child);
    t.equal(second.process.child.signalCode ?? second.process.child.exitCode, 0, 'a SIGTERM stops the process cleanly');
    t.notOk(harakaRunning(second.harakaPid), 'and its Haraka with it');
    t.equal(harakaPidFile(runDir), 0, 'a clean stop removes haraka.pid');
  }

  const doomed = await startInbound();
  const exited = new Promise<void>((resolve) => doomed.process.child.once('exit', () => resolve()));
  doomed.process.child.kill('SIGKILL');
  await exited;
  // Nothing connects now: even idle, Haraka sees its lifeline close and shuts down.
  await waitUntil(() => !harakaRunning(doomed.harakaPid), 'the idle orphan to end by itself');
  t.notOk(harakaRunning(doomed.harakaPid), 'the idle Haraka does not outlive its killed Mailroom');
  await waitUntil(async () => !(await portInUse(port)), 'the MX port to be free');
  t.notOk(await portInUse(port), 'and the MX port is free again');
  t.equal(harakaPidFile(runDir), doomed.harakaPid, 'haraka.pid still names it (the next start checks it is ours)');

  const next = await startInbound();
  t.not(next.harakaPid, doomed.harakaPid, 'the new process started its own Haraka');
  await waitUntil(() => !harakaRunning(doomed.harakaPid), 'the orphaned Haraka to end');
  t.notOk(harakaRunning(doomed.harakaPid), 'the orphan from before the kill is gone');
  t.ok(harakaRunning(next.harakaPid), 'the new Haraka runs and has the port');
  const attempt = await sendOne(0, 0, 'after restart');
  attempts.push(attempt);
  t.equal(attempt.outcome, '250', 'and mail is accepted again');
  if (attempt.outcome !== '250') return;
  const rows = await runtime.db.knex('received_emails').where({ team_id: team.id, id: attempt.id });
  t.equal(rows.length, 1, 'and stored');
  t.ok(rows[0] && storedRaw(database.dataDir, rows[0].raw_blob), 'with its raw message');
});
