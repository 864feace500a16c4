import t from 'tap';
import { errorShape, request } from '../helpers/http.js';
import { startTestApp } from '../helpers/test-app.js';

/** Redis configured but unreachable (nothing listens on port 1). */
const app = await startTestApp({ env: { MAILROOM_REDIS_URL: 'redis://127.0.0.1:1' } });
t.teardown(() => app.close());
const { token } = await app.createTeam('Redis down');

t.test('a request that needs the shared rate limit is 503 service_unavailable, not 500', async (t) => {
  errorShape(t, await request(app.url, '/team', { token }), 503, 'service_unavailable');
});

t.test('readiness reports the failed check', async (t) => {
  const res = await request(app.url, '/ready');
  t.equal(res.status, 503);
  t.match(res.body, { status: 'degraded', failed: ['redis'] });
  t.match(
    res.body.checks.find((c: { name: string }) => c.name === 'redis'),
    { ok: false, error: String },
  );
  t.match(
    res.body.checks.find((c: { name: string }) => c.name === 'database'),
    { ok: true },
  );
  const health = await request(app.url, '/health');
  t.equal(health.status, 200, 'liveness does not depend on Redis');
});
