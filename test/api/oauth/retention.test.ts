import t from 'tap';
import { jobs } from '../../../scheduler/jobs/index.js';
import { movableClock } from '../../helpers/clock.js';
import { errorShape, request } from '../../helpers/http.js';
import { startTestApp } from '../../helpers/test-app.js';
import { approve, discover, exchange, refresh, registerClient } from './oauth-fixture.js';

/**
 * The OAuth tables are purged by the purge-oauth-tokens job: what can never be used again goes,
 * what still guards a live grant (a recently rotated refresh token) stays.
 */
const clock = movableClock();
const app = await startTestApp({ clock });
t.teardown(() => app.close());
const team = await app.createTeam('Retention');
const as = await discover(app);
const client = await registerClient(as);
const job = jobs.find((j) => j.name === 'purge-oauth-tokens')!;
const count = async (table: string) => Number((await app.runtime.db.knex(table).count({ n: '*' }))[0]!.n);
const DAY = 86_400_000;

t.test('an approval never completed is not listed, and is purged a day later', async (t) => {
  await approve(app, as, client, team.teamId, ['team:read']);
  const list = await request(app.url, '/oauth/grants', { token: team.token });
  t.same(list.body.data, [], 'a grant whose code was never exchanged is not listed');
  clock.advanceTo(clock.now().getTime() + 2 * DAY);
  const purged = await job.run(app.runtime.services);
  t.match(purged, { codes: 1, grants: 1 });
  t.equal(await count('oauth_grants'), 0);
});

t.test('expired access tokens go; a rotated refresh token stays 30 days, and its replay still revokes', async (t) => {
  const first = await exchange(as, client, await approve(app, as, client, team.teamId, ['team:read']));
  const second = await refresh(as, client, first.refresh_token!);
  clock.advanceTo(clock.now().getTime() + DAY + 3600_000);
  const purged = await job.run(app.runtime.services);
  t.match(purged, { access_tokens: 2, refresh_tokens: 0, grants: 0, codes: 1 });
  const live = await refresh(as, client, second.refresh_token!);
  t.equal((await request(app.url, '/team', { token: live.access_token })).status, 200);
  await t.rejects(
    refresh(as, client, first.refresh_token!),
    { name: 'ResponseBodyError', error: 'invalid_grant' } as never,
    'a replay within the window still revokes the grant',
  );
  errorShape(t, await request(app.url, '/team', { token: live.access_token }), 401, 'invalid_api_key');

  clock.advanceTo(clock.now().getTime() + 31 * DAY);
  const later = await job.run(app.runtime.services);
  t.match(later, { grants: 1 });
  t.equal(await count('oauth_tokens'), 0, 'nothing left of the revoked grant');
});

t.test('deleted clients are purged after 30 days', async (t) => {
  const doomed = await registerClient(as);
  await request(app.url, `/oauth/register/${doomed.client_id}`, {
    method: 'DELETE',
    token: doomed.registration_access_token,
  });
  clock.advanceTo(clock.now().getTime() + 31 * DAY);
  t.match(await job.run(app.runtime.services), { clients: 1 });
});
