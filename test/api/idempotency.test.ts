import t from 'tap';
import { errorShape, request } from '../helpers/http.js';
import { startTestApp } from '../helpers/test-app.js';
import { fakeSendRoute } from '../helpers/test-routes.js';

const counter = { calls: 0, delayMs: 0 };
const app = await startTestApp({ extraRoutes: [fakeSendRoute(counter)] });
t.teardown(() => app.close());
const { token, teamId } = await app.createTeam('Idempotency');
const send = (body: unknown, key?: string, tok = token) =>
  request(app.url, '/test/emails', {
    method: 'POST',
    token: tok,
    body,
    headers: key === undefined ? {} : { 'idempotency-key': key },
  });

t.test('the same key and request replays the original response and runs once', async (t) => {
  const before = counter.calls;
  const first = await send({ to: 'a@example.com' }, 'key-1');
  const second = await send({ to: 'a@example.com' }, 'key-1');
  t.equal(first.status, 200);
  t.same(second.body, first.body);
  t.equal(second.status, 200);
  t.equal(second.headers.get('idempotent-replayed'), 'true');
  t.equal(counter.calls - before, 1, 'the handler ran once');
  const viaV1 = await request(app.url, '/api/v1/test/emails', {
    method: 'POST',
    token,
    body: { to: 'a@example.com' },
    headers: { 'idempotency-key': 'key-1' },
  });
  t.same(viaV1.body, first.body, 'both bases share the key');
});

t.test('without a key a retried send runs again', async (t) => {
  const a = await send({ to: 'a@example.com' });
  const b = await send({ to: 'a@example.com' });
  t.not(a.body.id, b.body.id);
});

t.test('the same key with a different request is 409 invalid_idempotent_request', async (t) => {
  await send({ to: 'a@example.com' }, 'key-2');
  errorShape(t, await send({ to: 'b@example.com' }, 'key-2'), 409, 'invalid_idempotent_request');
});

t.test('the same key while the first is in flight is 409 concurrent_idempotent_requests', async (t) => {
  counter.delayMs = 1500;
  const slow = send({ to: 'c@example.com' }, 'key-3');
  // The first request holds its claim for 1.5 s; ask again well inside that.
  await new Promise((resolve) => setTimeout(resolve, 200));
  errorShape(t, await send({ to: 'c@example.com' }, 'key-3'), 409, 'concurrent_idempotent_requests');
  t.equal((await slow).status, 200);
  counter.delayMs = 0;
  t.equal((await send({ to: 'c@example.com' }, 'key-3')).headers.get('idempotent-replayed'), 'true');
});

t.test('key length outside 1..256 is 400 invalid_idempotency_key', async (t) => {
  errorShape(t, await send({ to: 'a@example.com' }, ''), 400, 'invalid_idempotency_key');
  errorShape(t, await send({ to: 'a@example.com' }, 'k'.repeat(257)), 400, 'invalid_idempotency_key');
  t.equal((await send({ to: 'a@example.com' }, 'k'.repeat(256))).status, 200);
});

t.test('a failed request releases its key', async (t) => {
  const failed = await send({ fail: true }, 'key-4');
  t.equal(failed.status, 422);
  const retried = await send({ to: 'fixed@example.com' }, 'key-4');
  t.equal(retried.status, 200, 'a corrected request may use the same key');
});

t.test('keys are per team', async (t) => {
  const other = await app.createTeam();
  const mine = await send({ to: 'a@example.com' }, 'shared-key');
  const theirs = await send({ to: 'a@example.com' }, 'shared-key', other.token);
  t.not(mine.body.id, theirs.body.id);
});

t.test('a key older than 24 hours is forgotten; a claim left by a crashed process is taken over', async (t) => {
  const first = await send({ to: 'old@example.com' }, 'key-5');
  await app.runtime.db
    .knex('idempotency_keys')
    .where({ team_id: teamId })
    .update({ expires_at: new Date(Date.now() - 1000) });
  const later = await send({ to: 'old@example.com' }, 'key-5');
  t.not(later.body.id, first.body.id, 'sent again after the window');
  t.ok((await app.runtime.services.idempotency.purgeExpired()) >= 0);

  const claim = await app.runtime.services.idempotency.claim(teamId, 'key-6', 'f'.repeat(64));
  t.equal(claim.kind, 'claimed');
  await app.runtime.db
    .knex('idempotency_keys')
    .where({ team_id: teamId })
    .andWhere('state', 'in_flight')
    .update({ locked_until: new Date(Date.now() - 1000) });
  const takeover = await app.runtime.services.idempotency.claim(teamId, 'key-6', 'f'.repeat(64));
  t.equal(takeover.kind, 'claimed', 'the stale claim is taken over');
});

t.test('purgeExpired removes keys past their window', async (t) => {
  await send({ to: 'purge@example.com' }, 'key-7');
  await app.runtime.db
    .knex('idempotency_keys')
    .where({ team_id: teamId })
    .update({ expires_at: new Date(Date.now() - 1000) });
  t.ok((await app.runtime.services.idempotency.purgeExpired()) >= 1);
  t.equal(
    Number((await app.runtime.db.knex('idempotency_keys').where({ team_id: teamId }).count({ n: '*' }))[0]!.n),
    0,
  );
});
