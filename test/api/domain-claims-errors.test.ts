import t from 'tap';
import { newId } from '../../lib/ids.js';
import { errorShape, request } from '../helpers/http.js';
import { startTestApp } from '../helpers/test-app.js';
import { markedVerifiedDomain } from '../helpers/verified-domain.js';

/** Every refusal of the claim routes, and the `claimable` of POST /domains' 409, with the error body shape. */
const app = await startTestApp();
t.teardown(() => app.close());

const owner = await app.createTeam('Owner', 'unlimited');
const claimer = await app.createTeam('Claimer', 'unlimited');
await markedVerifiedDomain(app, owner.teamId, 'taken.test');
const post = (path: string, token: string, body?: unknown) => request(app.url, path, { method: 'POST', token, body });

t.test('POST /domains on a name another team verified: 409 resource_locked with claimable', async (t) => {
  const open = errorShape(t, await post('/domains', claimer.token, { name: 'taken.test' }), 409, 'resource_locked');
  t.equal(open.claimable, true, 'nothing stops a claim');
  t.match(open.message, /POST \/domains\/claim/);
  const started = await post('/domains/claim', claimer.token, { name: 'taken.test' });
  t.equal(started.status, 201);
  const running = errorShape(t, await post('/domains', claimer.token, { name: 'taken.test' }), 409, 'resource_locked');
  t.equal(running.claimable, false, 'this team already has a claim running');
  const third = await app.createTeam('Third', 'unlimited');
  const other = errorShape(t, await post('/domains', third.token, { name: 'taken.test' }), 409, 'resource_locked');
  t.equal(other.claimable, true, 'another team may still claim (and would supersede)');
  const own = errorShape(t, await post('/domains', owner.token, { name: 'taken.test' }), 422, 'validation_error');
  t.equal(own.claimable, undefined, 'the owner is told it has the name, not offered a claim');
});

t.test('POST /domains/claim refusals', async (t) => {
  const free = errorShape(
    t,
    await post('/domains/claim', claimer.token, { name: 'free.test' }),
    422,
    'validation_error',
  );
  t.match(free.errors, [{ path: 'name', message: /not verified by another team/ }]);
  errorShape(t, await post('/domains/claim', owner.token, { name: 'taken.test' }), 422, 'validation_error');
  errorShape(t, await post('/domains/claim', claimer.token, {}), 422, 'missing_required_field');
  errorShape(t, await post('/domains/claim', claimer.token, { name: 'not a name' }), 400, 'validation_error');
  errorShape(t, await post('/domains/claim', claimer.token, { name: 'co.uk' }), 422, 'validation_error');
  errorShape(t, await post('/domains/claim', claimer.token, { name: 'taken.test', nope: 1 }), 400, 'validation_error');
  const sending = await app.runtime.services.apiKeys.create(claimer.teamId, {
    name: 's',
    permission: 'sending_access',
  });
  errorShape(t, await post('/domains/claim', sending.token, { name: 'taken.test' }), 401, 'restricted_api_key');
  errorShape(
    t,
    await request(app.url, '/domains/claim', { method: 'POST', body: { name: 'x.test' } }),
    401,
    'missing_api_key',
  );
});

t.test('claim reads and verify: unknown, claim-less and malformed domains', async (t) => {
  const plain = (await post('/domains', claimer.token, { name: 'plain.test' })).body.id as string;
  for (const path of [`/domains/${plain}/claim`, `/domains/${newId()}/claim`]) {
    errorShape(t, await request(app.url, path, { token: claimer.token }), 404, 'not_found');
    errorShape(t, await post(`${path}/verify`, claimer.token), 404, 'not_found');
  }
  errorShape(t, await request(app.url, '/domains/nope/claim', { token: claimer.token }), 422, 'invalid_parameter');
  errorShape(t, await post('/domains/nope/claim/verify', claimer.token), 422, 'invalid_parameter');
  const sending = await app.runtime.services.apiKeys.create(claimer.teamId, {
    name: 's2',
    permission: 'sending_access',
  });
  errorShape(t, await request(app.url, `/domains/${plain}/claim`, { token: sending.token }), 401, 'restricted_api_key');
});
