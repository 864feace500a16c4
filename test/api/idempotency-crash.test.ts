import type { ChildProcess } from 'node:child_process';
import t from 'tap';
import { createRuntime } from '../../app/runtime.js';
import { loadConfig } from '../../lib/config/load-config.js';
import { createLogger } from '../../lib/logger.js';
import { TestDnsServer } from '../helpers/dns-server.js';
import { request, type HttpResponse } from '../helpers/http.js';
import { createTestDatabase } from '../helpers/test-database.js';
import { applianceProcessEnv } from '../helpers/process-env.js';
import { exitSignal, spawnMailroom, stopChild } from '../helpers/spawn-mailroom.js';
import { addVerifiedDomain } from '../helpers/verified-domain.js';
import type { TestApp } from '../helpers/test-app.js';

/**
 * Exactly one email per Idempotency-Key across crashes. The API process kills itself (SIGKILL,
 * MAILROOM_CRASH_POINT) at fixed points of a keyed send: after the key is claimed but before the
 * commit, and after the commit but before the answer. After a restart the client's retry with
 * the same key is answered at once (no 409 from the dead process's claim), and the key ends
 * with exactly one email: the first one replayed, or, if nothing had committed, one sent now.
 */
const dns = await TestDnsServer.start();
const database = createTestDatabase();
const env = applianceProcessEnv(database, dns);
const children: ChildProcess[] = [];
const runtime = await createRuntime(loadConfig(env), { logger: createLogger('silent') });
t.teardown(async () => {
  await Promise.all(children.map((child) => stopChild(child, 'SIGKILL')));
  await runtime.close();
  await database.drop();
  await dns.close();
});

async function startApi(crashPoint?: string): Promise<{ url: string; child: ChildProcess }> {
  const { child, ready } = spawnMailroom('api', crashPoint ? { ...env, MAILROOM_CRASH_POINT: crashPoint } : env);
  children.push(child);
  return { url: await ready, child };
}

const team = await runtime.services.teams.create({ name: 'Crash keys', planCode: 'unlimited' });
await runtime.services.teams.setTier(team.id, 2);
const { token } = await runtime.services.apiKeys.create(team.id, { name: 'k', permission: 'full_access' });
const setup = await startApi();
await addVerifiedDomain({ url: setup.url } as TestApp, dns, token, 'keys.test');
await stopChild(setup.child);

const emailsWithSubject = async (subject: string) =>
  runtime.db.knex('emails').where({ team_id: team.id, subject }).select('id');

for (const point of ['api.before-commit', 'api.after-commit']) {
  t.test(`killed at ${point}: the retry is answered at once, one email for the key`, async (t) => {
    const key = `key-${point}`;
    const body = { from: 'x@keys.test', to: 'someone@example.net', subject: `crash ${point}`, text: 'body' };
    const send = (url: string) =>
      request(url, '/emails', { method: 'POST', token, body, headers: { 'idempotency-key': key } });

    const doomed = await startApi(point);
    const lost: HttpResponse | Error = await send(doomed.url).catch((err: Error) => err);
    t.ok(lost instanceof Error, 'the client lost the answer');
    t.equal(await exitSignal(doomed.child), 'SIGKILL', 'the process died at the crash point');
    const committed = await emailsWithSubject(body.subject);
    t.equal(
      committed.length,
      point === 'api.before-commit' ? 0 : 1,
      point === 'api.before-commit' ? 'nothing committed' : 'the email committed',
    );

    const restarted = await startApi();
    const started = performance.now();
    const retry = await send(restarted.url);
    t.comment(`the retry was answered ${Math.round(performance.now() - started)} ms after the restart`);
    t.equal(retry.status, 200, "no 409 from the dead process's claim");
    const rows = await emailsWithSubject(body.subject);
    t.equal(rows.length, 1, 'exactly one email for the key');
    t.equal(retry.body.id, rows[0]!.id, 'the answer names that email');
    if (point === 'api.after-commit')
      t.equal(retry.headers.get('idempotent-replayed'), 'true', 'the first answer is replayed');
    const again = await send(restarted.url);
    t.same(again.body, retry.body, 'and every later retry gets the same answer');
    await stopChild(restarted.child);
  });
}
