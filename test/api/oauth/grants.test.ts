import t from 'tap';
import { errorShape, request } from '../../helpers/http.js';
import { startTestApp } from '../../helpers/test-app.js';
import { approve, discover, exchange, refresh, registerClient } from './oauth-fixture.js';
import { SCOPE_CATALOGUE } from '../../../core/oauth/oauth.scopes.js';

/**
 * /oauth/grants: a full_access key only (an OAuth token is refused whatever its scopes, a
 * sending key as everywhere else), the service error body, one team's grants only. Deleting a
 * client ends its grants.
 */
const app = await startTestApp();
t.teardown(() => app.close());
const team = await app.createTeam('Grants');
const neighbour = await app.createTeam('Neighbour');
const as = await discover(app);
const client = await registerClient(as, { client_name: 'Calendar sync' });
/** How oauth4webapi reports an OAuth error answer (ResponseBodyError). */
const refusal = (error: string) => ({ name: 'ResponseBodyError', error });
const sending = await app.runtime.services.apiKeys.create(team.teamId, { name: 's', permission: 'sending_access' });

t.test('list: the team’s live grants with their client', async (t) => {
  const approval = await approve(app, as, client, team.teamId, ['team:read', 'emails:read']);
  const tokens = await exchange(as, client, approval);
  await request(app.url, '/team', { token: tokens.access_token });
  await approve(app, as, client, neighbour.teamId, ['team:read']);

  const list = await request(app.url, '/oauth/grants', { token: team.token });
  t.equal(list.status, 200);
  t.match(list.body, { object: 'list', has_more: false });
  t.equal(list.body.data.length, 1, 'only this team’s');
  const [grant] = list.body.data;
  t.same(Object.keys(grant).sort(), [
    'client_id',
    'client_name',
    'created_at',
    'id',
    'last_used_at',
    'object',
    'scopes',
    'user_id',
  ]);
  t.match(grant, {
    object: 'oauth_grant',
    id: approval.grantId,
    client_id: client.client_id,
    client_name: 'Calendar sync',
    user_id: null,
    scopes: ['team:read', 'emails:read'],
  });
  t.ok(grant.last_used_at, 'last_used_at moves when a token is used');
  t.equal((await request(app.url, '/api/v1/oauth/grants', { token: team.token })).status, 200, 'both bases');
});

t.test('refused to OAuth tokens whatever their scopes, and to sending keys', async (t) => {
  const every = await exchange(as, client, await approve(app, as, client, team.teamId, [...SCOPE_CATALOGUE]));
  const grants = await request(app.url, '/oauth/grants', { token: team.token });
  const id = grants.body.data[0].id;
  errorShape(t, await request(app.url, '/oauth/grants', { token: every.access_token }), 403, 'invalid_permission');
  const del = await request(app.url, `/oauth/grants/${id}`, { method: 'DELETE', token: every.access_token });
  errorShape(t, del, 403, 'invalid_permission');
  errorShape(t, await request(app.url, '/oauth/grants', { token: sending.token }), 401, 'restricted_api_key');
  errorShape(t, await request(app.url, '/oauth/grants'), 401, 'missing_api_key');
});

t.test('revoking a grant stops every token under it; another team’s grant is 404', async (t) => {
  const approval = await approve(app, as, client, team.teamId, ['team:read']);
  const tokens = await exchange(as, client, approval);
  const foreign = await approve(app, as, client, neighbour.teamId, ['team:read']);
  const notFound = await request(app.url, `/oauth/grants/${foreign.grantId}`, { method: 'DELETE', token: team.token });
  errorShape(t, notFound, 404, 'not_found');

  const revoked = await request(app.url, `/oauth/grants/${approval.grantId}`, { method: 'DELETE', token: team.token });
  t.equal(revoked.status, 200);
  t.same(revoked.body, { object: 'oauth_grant', id: approval.grantId, deleted: true });
  errorShape(t, await request(app.url, '/team', { token: tokens.access_token }), 401, 'invalid_api_key');
  await t.rejects(refresh(as, client, tokens.refresh_token!), refusal('invalid_grant'), 'the refresh token is gone');
  const again = await request(app.url, `/oauth/grants/${approval.grantId}`, { method: 'DELETE', token: team.token });
  errorShape(t, again, 404, 'not_found');
  const list = await request(app.url, '/oauth/grants?limit=100', { token: team.token });
  t.notOk(
    list.body.data.some((grant: { id: string }) => grant.id === approval.grantId),
    'no longer listed',
  );
  const bad = await request(app.url, '/oauth/grants/not-a-uuid', { method: 'DELETE', token: team.token });
  errorShape(t, bad, 422, 'invalid_parameter');
});

t.test('deleting a client ends every grant it holds', async (t) => {
  const doomed = await registerClient(as, { client_name: 'Doomed' });
  const tokens = await exchange(as, doomed, await approve(app, as, doomed, team.teamId, ['team:read']));
  const deleted = await request(app.url, `/oauth/register/${doomed.client_id}`, {
    method: 'DELETE',
    token: doomed.registration_access_token,
  });
  t.equal(deleted.status, 204);
  errorShape(t, await request(app.url, '/team', { token: tokens.access_token }), 401, 'invalid_api_key');
  await t.rejects(refresh(as, doomed, tokens.refresh_token!), refusal('invalid_client'), 'the client is gone');
  const list = await request(app.url, '/oauth/grants?limit=100', { token: team.token });
  t.notOk(list.body.data.some((grant: { client_id: string }) => grant.client_id === doomed.client_id));
});
