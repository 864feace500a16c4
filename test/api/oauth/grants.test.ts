import { Resend } from 'resend';
import t from 'tap';
import { errorShape, request } from '../../helpers/http.js';
import { startTestApp } from '../../helpers/test-app.js';
import { approve, discover, exchange, refresh, registerClient } from './oauth-fixture.js';
import { SCOPE_CATALOGUE } from '../../../core/oauth/oauth.scopes.js';

/**
 * /oauth/grants: a full_access key only (an OAuth token is refused whatever its scopes, a
 * sending key as everywhere else), the service error body, one team's grants only. Deleting a
 * client ends its grants. The shapes are the resend SDK's `oauthGrants` (issue 38): the client as
 * `client { name, logo_uri }`, a revoke answering `revoked_at` and `revoked_reason`.
 */
const app = await startTestApp();
t.teardown(() => app.close());
const team = await app.createTeam('Grants');
const neighbour = await app.createTeam('Neighbour');
const as = await discover(app);
const client = await registerClient(as, {
  client_name: 'Calendar sync',
  logo_uri: 'https://calendar.example/logo.png',
});
/** The resend SDK as the team's client, on the /api/v1 base. */
const resend = new Resend(team.token, { baseUrl: `${app.url}/api/v1` } as never);
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
    'client',
    'client_id',
    'created_at',
    'id',
    'last_used_at',
    'object',
    'revoked_at',
    'revoked_reason',
    'scopes',
    'user_id',
  ]);
  t.match(grant, {
    object: 'oauth_grant',
    id: approval.grantId,
    client_id: client.client_id,
    user_id: null,
    scopes: ['team:read', 'emails:read'],
    revoked_at: null,
    revoked_reason: null,
  });
  t.same(grant.client, { name: 'Calendar sync', logo_uri: 'https://calendar.example/logo.png' });
  t.notOk('client_name' in grant, 'the client’s name lives under client');
  t.ok(grant.last_used_at, 'last_used_at moves when a token is used');
  t.equal((await request(app.url, '/api/v1/oauth/grants', { token: team.token })).status, 200, 'both bases');

  // The SDK reads the same page: client.name, not client_name.
  const sdk = await resend.oauthGrants.list();
  t.equal(sdk.error, null);
  t.equal(sdk.data!.has_more, false);
  const [item] = sdk.data!.data;
  t.equal(item!.id, approval.grantId);
  t.equal(item!.client.name, 'Calendar sync', 'resend.oauthGrants.list() reads client.name');
  t.equal(item!.client.logo_uri, 'https://calendar.example/logo.png');
  t.equal(item!.revoked_at, null);
  t.same(item!.scopes, ['team:read', 'emails:read']);
  t.equal((await resend.oauthGrants.list({ limit: 1 })).data!.data.length, 1, 'pagination options pass through');
});

t.test('a client without a logo lists logo_uri null', async (t) => {
  const plain = await registerClient(as, { client_name: 'No logo' });
  await exchange(as, plain, await approve(app, as, plain, team.teamId, ['team:read']));
  const { data } = await resend.oauthGrants.list({ limit: 100 });
  const grant = data!.data.find((g) => g.client_id === plain.client_id)!;
  t.same(grant.client, { name: 'No logo', logo_uri: null });
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

  const before = Date.now();
  const revoked = await request(app.url, `/oauth/grants/${approval.grantId}`, { method: 'DELETE', token: team.token });
  t.equal(revoked.status, 200);
  t.same(Object.keys(revoked.body).sort(), ['id', 'object', 'revoked_at', 'revoked_reason']);
  t.match(revoked.body, { object: 'oauth_grant', id: approval.grantId, revoked_reason: 'revoked_from_api' });
  t.ok(Math.abs(Date.parse(revoked.body.revoked_at) - before) < 60_000, 'revoked_at is now, an ISO timestamp');
  t.notOk('deleted' in revoked.body, 'a revoke is no delete');
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

t.test(
  'the SDK revokes: revoked_at and revoked_reason; a second revoke and another team’s grant are 404',
  async (t) => {
    const approval = await approve(app, as, client, team.teamId, ['team:read']);
    const tokens = await exchange(as, client, approval);
    const revoked = await resend.oauthGrants.revoke(approval.grantId);
    t.equal(revoked.error, null);
    t.equal(revoked.data!.object, 'oauth_grant');
    t.equal(revoked.data!.id, approval.grantId);
    t.equal(revoked.data!.revoked_reason, 'revoked_from_api');
    t.ok(!Number.isNaN(Date.parse(revoked.data!.revoked_at)), 'resend.oauthGrants.revoke() reads revoked_at');
    errorShape(t, await request(app.url, '/team', { token: tokens.access_token }), 401, 'invalid_api_key');

    const again = await resend.oauthGrants.revoke(approval.grantId);
    t.equal(again.data, null);
    t.match(again.error, { name: 'not_found', statusCode: 404 });
    const foreign = await approve(app, as, client, neighbour.teamId, ['team:read']);
    await exchange(as, client, foreign);
    const theirs = await resend.oauthGrants.revoke(foreign.grantId);
    t.match(theirs.error, { name: 'not_found', statusCode: 404 }, 'another team’s grant: 404 through the SDK');
    const viaHttp = await request(app.url, `/api/v1/oauth/grants/${foreign.grantId}`, {
      method: 'DELETE',
      token: team.token,
    });
    errorShape(t, viaHttp, 404, 'not_found');
    const neighbourList = await request(app.url, '/oauth/grants?limit=100', { token: neighbour.token });
    t.ok(
      neighbourList.body.data.some((grant: { id: string }) => grant.id === foreign.grantId),
      'the neighbour’s grant is untouched',
    );
  },
);

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
