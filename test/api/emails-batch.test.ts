import { Resend } from 'resend';
import t from 'tap';
import { createRuntime } from '../../app/runtime.js';
import { loadConfig } from '../../lib/config/load-config.js';
import { createLogger } from '../../lib/logger.js';
import { errorShape, request } from '../helpers/http.js';
import { TestDnsServer } from '../helpers/dns-server.js';
import { startTestApp } from '../helpers/test-app.js';
import { addVerifiedDomain } from '../helpers/verified-domain.js';
import { EmailRepository } from '../../core/sending/emails/email.repository.js';

const dns = await TestDnsServer.start();
const app = await startTestApp({ env: { MAILROOM_DNS_SERVERS: dns.address } });
t.teardown(async () => {
  await app.close();
  await dns.close();
});

async function sender(label: string) {
  const team = await app.createTeam(label, 'unlimited');
  await app.runtime.services.teams.setTier(team.teamId, 2);
  await addVerifiedDomain(app, dns, team.token, `${label}.test`);
  return team;
}
const count = async (teamId: string) =>
  Number((await app.runtime.db.knex('emails').where({ team_id: teamId }).count({ n: '*' }))[0]!.n);

t.test('POST /emails/batch: up to 100, strict by default (all or nothing), permissive reports indexes', async (t) => {
  const s = await sender('batch');
  const item = (i: number) => ({
    from: 'x@batch.test',
    to: `r${i}@example.net`,
    subject: `Message ${i}`,
    text: 'hello',
  });
  const ok = await request(app.url, '/emails/batch', {
    method: 'POST',
    token: s.token,
    body: [item(0), item(1), item(2)],
  });
  t.equal(ok.status, 200);
  t.equal(ok.body.data.length, 3);
  t.notOk('errors' in ok.body);
  t.equal(await count(s.teamId), 3);

  const strict = errorShape(
    t,
    await request(app.url, '/emails/batch', {
      method: 'POST',
      token: s.token,
      body: [item(3), { ...item(4), to: 'broken' }],
    }),
    400,
    'validation_error',
  );
  t.equal(strict.errors?.[0]?.path, '1.to', 'the failing item is named by index');
  t.equal(await count(s.teamId), 3, 'strict: nothing accepted');
  errorShape(
    t,
    await request(app.url, '/emails/batch', {
      method: 'POST',
      token: s.token,
      body: [item(3), { ...item(4), from: 'x@unverified.test' }],
    }),
    403,
    'validation_error',
  );
  t.equal(await count(s.teamId), 3);

  const permissive = await request(app.url, '/emails/batch', {
    method: 'POST',
    token: s.token,
    body: [item(5), { ...item(6), to: 'broken' }, item(7)],
    headers: { 'x-batch-validation': 'permissive' },
  });
  t.equal(permissive.status, 200);
  t.equal(permissive.body.data.length, 2);
  t.same(
    permissive.body.errors.map((e: { index: number }) => e.index),
    [1],
  );
  t.equal(await count(s.teamId), 5);

  errorShape(
    t,
    await request(app.url, '/emails/batch', {
      method: 'POST',
      token: s.token,
      body: Array.from({ length: 101 }, (_, i) => item(i)),
    }),
    400,
    'validation_error',
  );
  errorShape(
    t,
    await request(app.url, '/emails/batch', { method: 'POST', token: s.token, body: [] }),
    400,
    'validation_error',
  );
  errorShape(
    t,
    await request(app.url, '/emails/batch', { method: 'POST', token: s.token, body: { not: 'an array' } }),
    400,
    'validation_error',
  );
  errorShape(
    t,
    await request(app.url, '/emails/batch', {
      method: 'POST',
      token: s.token,
      body: [{ ...item(8), attachments: [{ filename: 'a', content: 'YQ==' }] }],
    }),
    400,
    'validation_error',
  );
  errorShape(
    t,
    await request(app.url, '/emails/batch', {
      method: 'POST',
      token: s.token,
      body: [item(9)],
      headers: { 'x-batch-validation': 'lenient' },
    }),
    400,
    'validation_error',
  );
  const hundred = await request(app.url, '/emails/batch', {
    method: 'POST',
    token: s.token,
    body: Array.from({ length: 100 }, (_, i) => item(i)),
  });
  t.equal(hundred.body.data.length, 100, '100 is fine');
});

t.test('reschedule and cancel a scheduled email; locked once dispatched', async (t) => {
  const s = await sender('sched2');
  const base = { from: 'x@sched2.test', to: 'a@example.net', subject: 's', text: 't' };
  const id = (
    await request(app.url, '/emails', { method: 'POST', token: s.token, body: { ...base, scheduled_at: 'in 2 hours' } })
  ).body.id;
  const moved = await request(app.url, `/emails/${id}`, {
    method: 'PATCH',
    token: s.token,
    body: { scheduled_at: 'tomorrow at 10:30' },
  });
  t.same(moved.body, { object: 'email', id });
  const got = (await request(app.url, `/emails/${id}`, { token: s.token })).body;
  t.match(got.scheduled_at, /T10:30:00.000Z$/);
  errorShape(
    t,
    await request(app.url, `/emails/${id}`, { method: 'PATCH', token: s.token, body: { scheduled_at: 'yesterday' } }),
    400,
    'validation_error',
  );
  t.same((await request(app.url, `/emails/${id}/cancel`, { method: 'POST', token: s.token })).body, {
    object: 'email',
    id,
  });
  t.equal((await request(app.url, `/emails/${id}`, { token: s.token })).body.last_event, 'canceled');
  errorShape(
    t,
    await request(app.url, `/emails/${id}/cancel`, { method: 'POST', token: s.token }),
    409,
    'resource_locked',
  );
  const events = (await app.runtime.services.eventLog.list(s.teamId)).map((e) => e.type);
  t.ok(events.includes('email.canceled'));

  const now = (await request(app.url, '/emails', { method: 'POST', token: s.token, body: base })).body.id;
  errorShape(
    t,
    await request(app.url, `/emails/${now}`, { method: 'PATCH', token: s.token, body: { scheduled_at: 'in 1 hour' } }),
    409,
    'resource_locked',
  );
  errorShape(
    t,
    await request(app.url, `/emails/${now}/cancel`, { method: 'POST', token: s.token }),
    409,
    'resource_locked',
  );
});

t.test('a reschedule that lands between reading the due list and the hand-over wins', async (t) => {
  const s = await sender('race');
  const id = (
    await request(app.url, '/emails', {
      method: 'POST',
      token: s.token,
      body: { from: 'x@race.test', to: 'a@example.net', subject: 's', text: 't', scheduled_at: 'in 2 hours' },
    })
  ).body.id;
  const repository = new EmailRepository(app.runtime.db.knex);
  const dispatchAt = new Date(Date.now() + 3 * 3600_000);
  t.ok((await repository.dueScheduled(dispatchAt, 1000)).includes(id), "due at the scheduler's moment");
  const moved = await request(app.url, `/emails/${id}`, {
    method: 'PATCH',
    token: s.token,
    body: { scheduled_at: 'in 5 hours' },
  });
  t.equal(moved.status, 200, 'the reschedule is accepted');
  t.equal(await repository.dispatch(id, dispatchAt), false, 'the hand-over finds it no longer due');
  const got = (await request(app.url, `/emails/${id}`, { token: s.token })).body;
  t.equal(got.last_event, 'scheduled', 'still scheduled, at the new time');
});

t.test('due scheduled emails are handed over exactly once, with two schedulers at work', async (t) => {
  const s = await sender('dispatch');
  const ids: string[] = [];
  for (let i = 0; i < 20; i++) {
    ids.push(
      (
        await request(app.url, '/emails', {
          method: 'POST',
          token: s.token,
          body: {
            from: 'x@dispatch.test',
            to: 'a@example.net',
            subject: `s${i}`,
            text: 't',
            scheduled_at: 'in 5 minutes',
          },
        })
      ).body.id,
    );
  }
  await app.runtime.db
    .knex('emails')
    .whereIn('id', ids)
    .update({ scheduled_at: new Date(Date.now() - 1000) });
  // A second process's view: its own runtime (own connection pool) on the same database.
  const second = await createRuntime(
    loadConfig({
      ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('MAILROOM_'))),
      MAILROOM_CONFIG: '',
      MAILROOM_DATABASE_URL: app.runtime.config.database.url,
      MAILROOM_DATA_DIR: app.runtime.config.dataDir,
    }),
    { logger: createLogger('silent') },
  );
  t.teardown(() => second.close());
  const [a, b] = await Promise.all([app.runtime.services.emails.dispatchDue(), second.services.emails.dispatchDue()]);
  t.equal(a.length + b.length, 20, 'every due email dispatched');
  t.same([...a, ...b].sort(), [...ids].sort(), 'each exactly once');
  const states = await app.runtime.db.knex('emails').whereIn('id', ids).distinct('last_event');
  t.same(
    states.map((r: { last_event: string }) => r.last_event),
    ['queued'],
  );
  t.same(await app.runtime.services.emails.dispatchDue(), [], 'nothing left');
});

t.test('the resend SDK: batch.send, emails.update, emails.cancel', async (t) => {
  const s = await sender('sdkbatch2');
  const resend = new Resend(s.token, { baseUrl: `${app.url}/api/v1` } as never);
  const batch = await resend.batch.send([
    { from: 'x@sdkbatch2.test', to: 'a@example.net', subject: 'one', text: '1' },
    { from: 'x@sdkbatch2.test', to: 'b@example.net', subject: 'two', text: '2', scheduledAt: 'in 1 hour' },
  ]);
  t.equal(batch.error, null);
  t.equal(batch.data!.data.length, 2);
  const scheduledId = batch.data!.data[1]!.id;
  t.same((await resend.emails.update({ id: scheduledId, scheduledAt: 'in 3 hours' })).data, {
    object: 'email',
    id: scheduledId,
  });
  t.same((await resend.emails.cancel(scheduledId)).data, { object: 'email', id: scheduledId });
  const permissive = await resend.batch.send(
    [{ from: 'x@sdkbatch2.test', to: 'broken', subject: 'x', text: 'x' } as never],
    { batchValidation: 'permissive' },
  );
  t.same(permissive.data, { data: [], errors: [{ index: 0, message: permissive.data!.errors[0]!.message }] });
});
