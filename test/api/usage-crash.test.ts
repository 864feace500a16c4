import type { ChildProcess } from 'node:child_process';
import t from 'tap';
import { createRuntime } from '../../app/runtime.js';
import { loadConfig } from '../../lib/config/load-config.js';
import { createLogger } from '../../lib/logger.js';
import { TestDnsServer } from '../helpers/dns-server.js';
import { request } from '../helpers/http.js';
import { applianceProcessEnv } from '../helpers/process-env.js';
import { exitSignal, spawnMailroom, stopChild } from '../helpers/spawn-mailroom.js';
import { createTestDatabase } from '../helpers/test-database.js';
import { markedVerifiedDomain } from '../helpers/verified-domain.js';
import type { TestApp } from '../helpers/test-app.js';

/**
 * A usage record commits with the email it counts or not at all: the API process kills itself
 * (SIGKILL, MAILROOM_CRASH_POINT) just before a send's commit and just after it; what survives
 * in the database is either no email and no record, or one email and one record, and the
 * client's retry with the same Idempotency-Key never adds a second.
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

const team = await runtime.services.teams.create({ name: 'Crash usage', planCode: 'unlimited' });
const { token } = await runtime.services.apiKeys.create(team.id, { name: 'k', permission: 'full_access' });
await markedVerifiedDomain({ runtime } as unknown as TestApp, team.id, 'crash-usage.test');

async function startApi(crashPoint?: string): Promise<{ url: string; child: ChildProcess }> {
  const { child, ready } = spawnMailroom('api', crashPoint ? { ...env, MAILROOM_CRASH_POINT: crashPoint } : env);
  children.push(child);
  return { url: await ready, child };
}

/** Emails of the test's subject, and the usage records that count them. */
async function survivors(subject: string) {
  const emails = (await runtime.db.knex('emails').where({ team_id: team.id, subject }).select('id')) as Array<{
    id: string;
  }>;
  const records =
    emails.length === 0
      ? []
      : await runtime.db
          .knex('usage_records')
          .whereIn(
            'source_id',
            emails.map((e) => e.id),
          )
          .select('quantity', 'category');
  return { emails: emails.length, records };
}

for (const point of ['api.before-commit', 'api.after-commit']) {
  t.test(`killed at ${point}: the email and its usage record together or neither`, async (t) => {
    const body = { from: 'x@crash-usage.test', to: 'someone@example.net', subject: `usage ${point}`, text: 'body' };
    const send = (url: string) =>
      request(url, '/emails', { method: 'POST', token, body, headers: { 'idempotency-key': `usage-${point}` } });

    const doomed = await startApi(point);
    t.ok((await send(doomed.url).catch((err: Error) => err)) instanceof Error, 'the client lost the answer');
    t.equal(await exitSignal(doomed.child), 'SIGKILL', 'the process died at the crash point');
    const after = await survivors(body.subject);
    if (point === 'api.before-commit') t.same(after, { emails: 0, records: [] }, 'neither committed');
    else t.same(after, { emails: 1, records: [{ quantity: 1, category: 'transactional_emails' }] }, 'both committed');
    const [all] = (await runtime.db.knex('usage_records').where({ team_id: team.id }).sum({ n: 'quantity' })) as Array<{
      n: number | string | null;
    }>;
    const [sent] = (await runtime.db.knex('emails').where({ team_id: team.id }).count({ n: '*' })) as Array<{
      n: number | string;
    }>;
    t.equal(Number(all!.n ?? 0), Number(sent!.n), 'the ledger agrees with the emails');

    const restarted = await startApi();
    t.equal((await send(restarted.url)).status, 200, 'the retry is answered');
    t.equal((await send(restarted.url)).status, 200, 'and again');
    t.same(
      await survivors(body.subject),
      { emails: 1, records: [{ quantity: 1, category: 'transactional_emails' }] },
      'one email, one record, whatever the retries',
    );
    await stopChild(restarted.child);
  });
}
