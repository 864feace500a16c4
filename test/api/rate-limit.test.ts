import t from 'tap';
import { errorShape, request, type HttpResponse } from '../helpers/http.js';
import { startTestApp } from '../helpers/test-app.js';

/** The real limit: 10 per second per team, a bucket of 10. */
const app = await startTestApp({ rateLimitPerSecond: 10 });
t.teardown(() => app.close());

async function burst(calls: Array<() => Promise<HttpResponse>>) {
  const started = performance.now();
  const responses = await Promise.all(calls.map((call) => call()));
  return { responses, seconds: (performance.now() - started) / 1000 };
}

t.test(`a burst over the bucket gets 429 rate_limit_exceeded with retry-after (${app.runtime.kv.kind})`, async (t) => {
  const { token, teamId } = await app.createTeam('Burst');
  const second = await app.runtime.services.apiKeys.create(teamId, {
    name: 'second key',
    permission: 'sending_access',
  });
  // Both keys draw from the team's one bucket.
  const calls = Array.from(
    { length: 30 },
    (_, i) => () => request(app.url, '/team', { token: i % 2 ? token : second.token }),
  );
  const { responses, seconds } = await burst(calls);
  const limited = responses.filter((r) => r.status === 429);
  const passed = responses.filter((r) => r.status !== 429);
  t.ok(passed.length >= 10, `the first 10 pass (${passed.length} did)`);
  t.ok(
    passed.length <= 10 + Math.ceil(seconds * 10) + 1,
    `no more than the bucket plus its refill in ${seconds.toFixed(2)} s (${passed.length})`,
  );
  t.ok(limited.length > 0, 'the rest are refused');
  const refusal = limited[0]!;
  errorShape(t, refusal, 429, 'rate_limit_exceeded');
  const retryAfter = Number(refusal.headers.get('retry-after'));
  t.ok(Number.isInteger(retryAfter) && retryAfter >= 1, `retry-after is whole seconds, never 0 (${retryAfter})`);
  t.equal(refusal.headers.get('ratelimit-limit'), '10');
  t.equal(refusal.headers.get('ratelimit-remaining'), '0');
  t.ok(Number(refusal.headers.get('ratelimit-reset')) >= 1);
});

t.test('teams have their own buckets; the bucket refills', async (t) => {
  const a = await app.createTeam();
  const b = await app.createTeam();
  await burst(Array.from({ length: 15 }, () => () => request(app.url, '/team', { token: a.token })));
  const other = await request(app.url, '/team', { token: b.token });
  t.equal(other.status, 200, 'another team is not limited');
  t.equal(other.headers.get('ratelimit-remaining'), '9');
  await new Promise((resolve) => setTimeout(resolve, 1100));
  const refilled = await request(app.url, '/team', { token: a.token });
  t.equal(refilled.status, 200, 'a second later the bucket has refilled');
  t.equal(refilled.headers.get('ratelimit-reset'), '1', 'ratelimit-reset: seconds until full');
});

t.test('rate-limited requests are logged at most once per key per second, all of them counted', async (t) => {
  const { token, teamId } = await app.createTeam('Flood');
  const countedBefore = app.runtime.services.requestLogs.rateLimitedCount;
  const started = Date.now();
  const { responses } = await burst(Array.from({ length: 60 }, () => () => request(app.url, '/team', { token })));
  const seconds = Math.floor(Date.now() / 1000) - Math.floor(started / 1000) + 1;
  const limited = responses.filter((r) => r.status === 429).length;
  t.ok(limited >= 40, `most of the flood is refused (${limited})`);
  t.equal(app.runtime.services.requestLogs.rateLimitedCount - countedBefore, limited, 'every refusal is counted');
  const logged = Number(
    (await app.runtime.db.knex('request_logs').where({ team_id: teamId, response_status: 429 }).count({ n: '*' }))[0]!
      .n,
  );
  t.ok(
    logged >= 1 && logged <= seconds,
    `${logged} refusals logged over ${seconds} second(s) of flood, not ${limited}`,
  );
  const served = Number(
    (await app.runtime.db.knex('request_logs').where({ team_id: teamId, response_status: 200 }).count({ n: '*' }))[0]!
      .n,
  );
  t.equal(served, responses.length - limited, 'every request that was served is logged');
});

t.test('authentication and the rate limit answer before the body is read', async (t) => {
  const { token } = await app.createTeam('Order');
  errorShape(
    t,
    await request(app.url, '/emails', {
      method: 'POST',
      rawBody: '{"not json',
      headers: { 'content-type': 'application/json' },
    }),
    401,
    'missing_api_key',
  );
  await burst(Array.from({ length: 15 }, () => () => request(app.url, '/team', { token })));
  const refused = await request(app.url, '/emails', {
    method: 'POST',
    token,
    rawBody: '{"not json',
    headers: { 'content-type': 'application/json' },
  });
  errorShape(t, refused, 429, 'rate_limit_exceeded');
});
