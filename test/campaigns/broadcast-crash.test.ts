import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { request } from '../helpers/http.js';
import { commandEnv } from '../helpers/process-env.js';
import { spawnMailroom, stopChild } from '../helpers/spawn-mailroom.js';
import { startTestApp } from '../helpers/test-app.js';
import { markedVerifiedDomain } from '../helpers/verified-domain.js';

/**
 * A `mailroom scheduler` killed with SIGKILL in the middle of a broadcast's fan-out (right after
 * a page committed, and inside a page before its commit), then a new scheduler: every member
 * gets exactly one email, and the broadcast ends sent.
 */
const app = await startTestApp();
const children: ChildProcess[] = [];
t.teardown(async () => {
  await Promise.all(children.map((child) => stopChild(child, 'SIGKILL')));
  await app.close();
});
const { knex } = app.runtime.db;
const MEMBERS = 120;
// Pages of 10: the kill lands with most of the broadcast still to go.
const configFile = join(app.runtime.config.dataDir, 'fan-out.json');
writeFileSync(configFile, JSON.stringify({ marketing: { fanOutPageSize: 10 } }));
const env = {
  ...commandEnv({ url: app.runtime.config.database.url, dataDir: app.runtime.config.dataDir, drop: async () => {} }),
  MAILROOM_ENV: 'test',
  MAILROOM_CONFIG: configFile,
};

const team = await app.createTeam('Crash', 'unlimited');
const call = (method: string, path: string, body?: unknown) =>
  request(app.url, path, { method, token: team.token, body });
await markedVerifiedDomain(app, team.teamId, 'crash.test');
await call('PATCH', '/team', {
  sender_name: 'Crash',
  postal_address: { line1: '1 Main St', city: 'Springfield', postal_code: '12345', country: 'US' },
});
for (let i = 0; i < MEMBERS; i += 20)
  await Promise.all(Array.from({ length: 20 }, (_, k) => call('POST', '/contacts', { email: `m${i + k}@dest.test` })));
const segment = (
  await call('POST', '/segments', { name: 'All', filter: { all: [{ field: 'email', op: 'contains', value: '@' }] } })
).body.id;

const count = async (table: string, where: Record<string, unknown>) =>
  Number(((await knex(table).where(where).count({ n: '*' }).first()) as { n: unknown }).n);

for (const point of ['broadcast.after-page-commit', 'broadcast.before-page-commit']) {
  t.test(`killed at ${point}: a new scheduler finishes, each member once`, async (t) => {
    const id = (
      await call('POST', '/broadcasts', {
        segment_id: segment,
        from: 'Crash <news@crash.test>',
        subject: 'Hi',
        text: 'Hello {{{EMAIL}}}',
        send: true,
      })
    ).body.id;
    const killed = spawnMailroom('scheduler', { ...env, MAILROOM_CRASH_POINT: point }, 'never');
    killed.ready.catch(() => undefined);
    children.push(killed.child);
    const signal = await new Promise((resolve) => killed.child.once('exit', (_code, signal) => resolve(signal)));
    t.equal(signal, 'SIGKILL', 'the scheduler died there');
    const committed = await count('broadcast_recipients', { broadcast_id: id });
    t.equal(committed, point === 'broadcast.after-page-commit' ? 10 : 0, 'what committed before the kill');
    t.equal(await count('emails', { broadcast_id: id }), committed, 'emails and recipient rows together');
    t.equal((await call('GET', `/broadcasts/${id}`)).body.status, 'sending');

    const next = spawnMailroom('scheduler', env, 'never');
    next.ready.catch(() => undefined);
    children.push(next.child);
    const deadline = Date.now() + 60_000;
    while ((await call('GET', `/broadcasts/${id}`)).body.status !== 'sent') {
      if (Date.now() > deadline) throw new Error('the broadcast did not finish');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await stopChild(next.child);
    t.equal(await count('broadcast_recipients', { broadcast_id: id }), MEMBERS, 'every member has one recipient row');
    t.equal(await count('emails', { broadcast_id: id }), MEMBERS, 'and one email');
    const recipients = (await knex('emails').where({ broadcast_id: id }).pluck('to_addresses')) as string[];
    t.equal(new Set(recipients).size, MEMBERS, 'to different addresses');
  });
}
