import t from 'tap';
import { declared } from '../../helpers/declared-schema.js';
import { errorShape, request, type RequestOptions } from '../../helpers/http.js';
import { createOperator } from '../../helpers/operator.js';
import { insertAttempt, insertDeliveries, insertEmail } from '../../helpers/queue-rows.js';
import { startTestApp } from '../../helpers/test-app.js';
import { newId } from '../../../lib/ids.js';

/** The admin API's queue: depth, search, one email's attempts, hold/release/retry/purge by filter. */
const app = await startTestApp();
t.teardown(() => app.close());
const operator = await createOperator(app);
const origin = new URL(app.url).origin;
const admin = (path: string, options: RequestOptions = {}) =>
  request(app.url, path, { ...options, headers: { cookie: operator.cookie, origin, ...options.headers } });
const post = (path: string, body: unknown) => admin(path, { method: 'POST', body });

const a = await app.createTeam('A');
const b = await app.createTeam('B');
const hourAgo = new Date(Date.now() - 3_600_000);
const toGmail = await insertEmail(app.runtime, a.teamId, ['ann@gmail.test', 'bob@yahoo.test'], hourAgo);
const [gmailDelivery] = await insertDeliveries(app.runtime, toGmail, { createdAt: hourAgo });
await insertAttempt(app.runtime, gmailDelivery!, 'deferred', '421 4.7.0 try later');
const fromB = await insertEmail(app.runtime, b.teamId, ['cat@gmail.test']);
await insertDeliveries(app.runtime, fromB, { state: 'deferred', nextAttemptAt: new Date(Date.now() + 600_000) });
const stateOf = async (emailId: string) =>
  (await app.runtime.db.knex('deliveries').where({ email_id: emailId }).orderBy('recipient')).map((row) => row.state);

t.test('GET /admin/queue: depth by state and lane, oldest due, by destination and egress', async (t) => {
  const res = await admin('/admin/queue');
  t.equal(res.status, 200);
  declared(t, 'GET', '/admin/queue', res);
  t.equal(res.body.states.queued, 2);
  t.equal(res.body.states.deferred, 1);
  t.equal(res.body.states.held, 0, 'every state is listed, zeros included');
  t.same(
    res.body.lanes.find((l: { state: string }) => l.state === 'queued'),
    { lane: 'transactional', state: 'queued', count: 2 },
  );
  t.ok(res.body.oldest_due_seconds >= 3590, `oldest due an hour ago (${res.body.oldest_due_seconds})`);
  const gmail = res.body.destinations.filter((d: { domain: string }) => d.domain === 'gmail.test');
  t.same(gmail.map((d: { state: string; count: number }) => [d.state, d.count]).sort(), [
    ['deferred', 1],
    ['queued', 1],
  ]);
  t.same(
    res.body.egress.map((e: { address: string | null; count: number }) => e.address),
    [null, null],
    'no egress address chosen yet',
  );
});

t.test('GET /admin/queue/messages: by recipient, by email id; at least one', async (t) => {
  const byRecipient = await admin('/admin/queue/messages?recipient=ANN@gmail.test');
  t.equal(byRecipient.status, 200);
  declared(t, 'GET', '/admin/queue/messages', byRecipient);
  t.equal(byRecipient.body.data.length, 1);
  t.match(byRecipient.body.data[0], { email_id: toGmail.id, team_id: a.teamId, state: 'queued', attempts: 0 });
  const byEmail = await admin(`/admin/queue/messages?email_id=${toGmail.id}&limit=1`);
  t.equal(byEmail.body.data.length, 1);
  t.equal(byEmail.body.has_more, true, 'two deliveries, a page of one');
  errorShape(t, await admin('/admin/queue/messages'), 422, 'invalid_parameter');
  errorShape(t, await admin('/admin/queue/messages?email_id=nope'), 422, 'invalid_parameter');
});

t.test('GET /admin/queue/emails/:id: deliveries and attempts, transcripts on request', async (t) => {
  const res = await admin(`/admin/queue/emails/${toGmail.id}?transcripts=true`);
  t.equal(res.status, 200);
  declared(t, 'GET', '/admin/queue/emails/:email_id', res);
  t.match(res.body.email, { id: toGmail.id, team_id: a.teamId, subject: 'Queued' });
  const ann = res.body.deliveries.find((d: { recipient: string }) => d.recipient === 'ann@gmail.test');
  t.equal(ann.attempt_log.length, 1);
  t.match(ann.attempt_log[0], { outcome: 'deferred', reply: '421 4.7.0 try later', transcript: /EHLO/ });
  const plain = await admin(`/admin/queue/emails/${toGmail.id}`);
  t.notOk('transcript' in plain.body.deliveries[0].attempt_log[0] || false, 'no transcript unless asked');
  errorShape(t, await admin(`/admin/queue/emails/${newId()}`), 404, 'not_found');
  errorShape(t, await admin('/admin/queue/emails/not-a-uuid'), 422, 'invalid_parameter');
});

t.test('hold, release, retry by destination domain (and team), as mailroom queue does', async (t) => {
  const hold = await post('/admin/queue/hold', { domain: 'GMAIL.test' });
  t.equal(hold.status, 200);
  declared(t, 'POST', '/admin/queue/hold', hold);
  t.same(hold.body, {
    object: 'queue_action',
    action: 'hold',
    filter: { email_id: null, domain: 'gmail.test', team_id: null },
    affected: 2,
  });
  t.same(await stateOf(toGmail.id), ['held', 'queued'], 'only the gmail.test delivery of the email');
  t.same(await stateOf(fromB.id), ['held']);
  const release = await post('/admin/queue/release', { domain: 'gmail.test', team_id: b.teamId });
  t.equal(release.body.affected, 1, 'domain and team narrow the match');
  t.same(await stateOf(fromB.id), ['queued']);
  t.same(await stateOf(toGmail.id), ['held', 'queued']);
  const retry = await post('/admin/queue/retry', { team_id: b.teamId });
  t.equal(retry.body.affected, 1);
  await post('/admin/queue/release', { email_id: toGmail.id });
  t.same(await stateOf(toGmail.id), ['queued', 'queued']);

  const none = await post('/admin/queue/hold', {});
  errorShape(t, none, 400, 'validation_error');
  errorShape(t, await post('/admin/queue/hold', { domain: 'not a domain' }), 400, 'validation_error');
  errorShape(t, await post('/admin/queue/hold', { team_id: 'x', everything: true }), 400, 'validation_error');
});

t.test('purge: refused without confirm (says how many), then removes for good', async (t) => {
  const unconfirmed = await post('/admin/queue/purge', { domain: 'yahoo.test' });
  const body = errorShape(t, unconfirmed, 409, 'confirmation_required');
  t.same(body.details, { would_remove: 1 });
  t.same(await stateOf(toGmail.id), ['queued', 'queued'], 'nothing changed');
  const purged = await post('/admin/queue/purge', { domain: 'yahoo.test', confirm: true });
  t.equal(purged.status, 200);
  t.match(purged.body, { action: 'purge', affected: 1 });
  t.same(await stateOf(toGmail.id), ['queued'], 'the yahoo.test delivery is gone');
  errorShape(t, await post('/admin/queue/purge', { confirm: true }), 400, 'validation_error');
});
