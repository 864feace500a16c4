import t from 'tap';
import { movableClock } from '../../helpers/clock.js';
import { request } from '../../helpers/http.js';
import { startTestApp } from '../../helpers/test-app.js';
import { oauthErrorShape, REDIRECT_URI } from './oauth-fixture.js';

/**
 * Registration limits: 10 per address per hour (the spec's figure, the default) and a daily
 * platform-wide cap (1,000 by default; lowered here through configuration). Past either: 429
 * in the OAuth error shape (invalid_request) with Retry-After. Time moves with a movable clock.
 */
const body = { client_name: 'Limited', redirect_uris: [REDIRECT_URI] };

t.test('10 per address per hour, counted over a sliding hour', async (t) => {
  const clock = movableClock();
  const app = await startTestApp({ clock });
  t.teardown(() => app.close());
  const register = () => request(app.url, '/oauth/register', { method: 'POST', body });
  const started = clock.now().getTime();
  for (let i = 0; i < 10; i++) t.equal((await register()).status, 201, `registration ${i + 1}`);
  // Refusals are not counted: a bad body past the limit is still a 400, and counts nothing.
  const refused = await register();
  oauthErrorShape(t, refused, 429, 'invalid_request');
  const retryAfter = Number(refused.headers.get('retry-after'));
  t.ok(retryAfter > 3500 && retryAfter <= 3600, `Retry-After is about an hour (${retryAfter})`);

  clock.advanceTo(started + 30 * 60_000);
  oauthErrorShape(t, await register(), 429, 'invalid_request');
  clock.advanceTo(started + 3600_000 + 1000);
  t.equal((await register()).status, 201, 'an hour after the first, there is room again');
});

t.test('a daily cap across the platform', async (t) => {
  const clock = movableClock();
  const app = await startTestApp({ clock, config: { oauth: { registrationsPerDay: 3 } } });
  t.teardown(() => app.close());
  const started = clock.now().getTime();
  // Different addresses: the per-address limit is not what refuses (the service is called directly).
  for (let i = 0; i < 3; i++) await app.runtime.services.oauthClients.register(body, `192.0.2.${i}`);
  const refused = await request(app.url, '/oauth/register', { method: 'POST', body });
  oauthErrorShape(t, refused, 429, 'invalid_request');
  const retryAfter = Number(refused.headers.get('retry-after'));
  t.ok(retryAfter > 86_000 && retryAfter <= 86_400, `Retry-After is about a day (${retryAfter})`);
  clock.advanceTo(started + 86_400_000 + 1000);
  t.equal((await request(app.url, '/oauth/register', { method: 'POST', body })).status, 201);
});
