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
  const second = await app.runtime.services.apiKeys.create(teamId, { name: 'second key', permission: 'sending_access' });
  // Both keys draw from the team's one bucket.
  const calls = Array.from({ length: 30 }, (_, i) => () => request(app.url, '/team', { token: i % 2 ? token : second.token }));
  const { responses, seconds } = await burst(calls);
  const limited = responses.filter((r) => r.status === 429);
  const passed = responses.filter((r) => r.status !== 429);
  t.ok(passed.length >= 10, `the first 10 pass (${passed.length} did)`);
  t.ok(passed.length <= 10 + Math.ceil(seconds * 10) + 1, `no more than the bucket plus its refill in ${seconds.toFixed(2)} s (${passed.length})`);
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
