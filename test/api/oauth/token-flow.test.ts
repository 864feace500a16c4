import * as oauth from 'oauth4webapi';
import t from 'tap';
import { movableClock } from '../../helpers/clock.js';
import { errorShape, request } from '../../helpers/http.js';
import { startTestApp } from '../../helpers/test-app.js';
import {
  approve,
  discover,
  exchange,
  insecure,
  oauthErrorShape,
  REDIRECT_URI,
  refresh,
  registerClient,
  revoke,
} from './oauth-fixture.js';

/**
 * The code flow end to end with a real client (oauth4webapi): exchange with PKCE, API calls with
 * the access token, rotation, replay detection, revocation and expiry, as the spec's state table
 * moves codes and tokens. issueCode stands in for the consent page.
 */
const clock = movableClock();
const app = await startTestApp({ clock });
t.teardown(() => app.close());
const team = await app.createTeam('Token team');
const as = await discover(app);
const client = await registerClient(as, { scope: 'team:read emails:read team:write' });
const other = await registerClient(as);

const api = (token: string, path: string) => request(app.url, path, { token });
const tokenPost = (body: string, type = 'application/x-www-form-urlencoded') =>
  request(app.url, '/oauth/token', { method: 'POST', rawBody: body, headers: { 'content-type': type } });
/** How oauth4webapi reports an OAuth error answer (ResponseBodyError). */
const grantError = (error: string) => ({ name: 'ResponseBodyError', error });

t.test('a code exchanged with its verifier gives tokens that call the API within their scopes', async (t) => {
  const approval = await approve(app, as, client, team.teamId, ['team:read']);
  t.match(approval.code, /^svcc_/);
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    client,
    oauth.None(),
    approval.callback,
    REDIRECT_URI,
    approval.verifier,
    insecure,
  );
  t.equal(response.headers.get('cache-control'), 'no-store');
  t.equal(response.headers.get('pragma'), 'no-cache');
  const tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
  t.match(tokens.access_token, /^svco_/);
  t.match(tokens.refresh_token, /^svcr_/);
  t.equal(tokens.token_type, 'bearer');
  t.equal(tokens.expires_in, 3600);
  t.equal(tokens.scope, 'team:read');

  const teamRes = await api(tokens.access_token, '/team');
  t.equal(teamRes.status, 200, 'GET /team with team:read');
  t.equal(teamRes.body.id, team.teamId, 'the grant’s team');
  t.equal((await api(tokens.access_token, '/api/v1/team')).status, 200, 'on both bases');
  errorShape(t, await api(tokens.access_token, '/emails'), 403, 'invalid_permission');
  errorShape(t, await api(tokens.access_token, '/team/members'), 403, 'invalid_permission');
  errorShape(t, await api(tokens.access_token, '/api-keys'), 403, 'invalid_permission');
  const rename = await request(app.url, '/team', { method: 'PATCH', token: tokens.access_token, body: { name: 'x' } });
  errorShape(t, rename, 403, 'invalid_permission');
  errorShape(t, await api('svco_unknown', '/team'), 401, 'invalid_api_key');
  errorShape(t, await api(tokens.refresh_token!, '/team'), 401, 'invalid_api_key');
});

t.test('the token endpoint takes JSON too, and refuses in the OAuth shape', async (t) => {
  const approval = await approve(app, as, client, team.teamId, ['team:read']);
  const base = { client_id: client.client_id, redirect_uri: REDIRECT_URI, code_verifier: approval.verifier };
  const json = await request(app.url, '/oauth/token', {
    method: 'POST',
    body: { grant_type: 'authorization_code', code: approval.code, ...base },
  });
  t.equal(json.status, 200);
  t.match(json.body, { token_type: 'Bearer', expires_in: 3600, scope: 'team:read' });

  const form = (params: Record<string, string>) => tokenPost(new URLSearchParams(params).toString());
  oauthErrorShape(t, await form({ client_id: client.client_id }), 400, 'invalid_request');
  oauthErrorShape(t, await form({ ...base, grant_type: 'password' }), 400, 'unsupported_grant_type');
  oauthErrorShape(t, await form({ ...base, grant_type: 'client_credentials' }), 400, 'unsupported_grant_type');
  oauthErrorShape(t, await form({ grant_type: 'authorization_code' }), 400, 'invalid_request');
  const unknownClient = await form({ ...base, grant_type: 'authorization_code', client_id: 'svcoc_x', code: 'x' });
  oauthErrorShape(t, unknownClient, 401, 'invalid_client');
  oauthErrorShape(t, await form({ ...base, grant_type: 'authorization_code' }), 400, 'invalid_request');
  oauthErrorShape(t, await form({ ...base, grant_type: 'authorization_code', code: 'svcc_x' }), 400, 'invalid_grant');
  const repeated = `grant_type=authorization_code&code=a&code=b&client_id=${client.client_id}`;
  oauthErrorShape(t, await tokenPost(repeated), 400, 'invalid_request');
  oauthErrorShape(t, await tokenPost('grant_type=x', 'text/plain'), 400, 'invalid_request');
  oauthErrorShape(t, await tokenPost('{"grant_type":', 'application/json'), 400, 'invalid_request');
  oauthErrorShape(t, await tokenPost('{"grant_type":["a"]}', 'application/json'), 400, 'invalid_request');

  const codeOnly = await registerClient(as, { grant_types: ['authorization_code'] });
  const refused = await form({ grant_type: 'refresh_token', client_id: codeOnly.client_id, refresh_token: 'svcr_x' });
  oauthErrorShape(t, refused, 400, 'unauthorized_client');
});

t.test('a wrong verifier, redirect URI or client, or an expired code: invalid_grant', async (t) => {
  const wrongVerifier = await approve(app, as, client, team.teamId, ['team:read']);
  await t.rejects(
    exchange(as, client, { ...wrongVerifier, verifier: oauth.generateRandomCodeVerifier() }),
    grantError('invalid_grant'),
  );
  await t.rejects(
    exchange(as, client, wrongVerifier),
    grantError('invalid_grant'),
    'the failed exchange spent the code',
  );

  const wrongRedirect = await approve(app, as, client, team.teamId, ['team:read']);
  const res = await tokenPost(
    new URLSearchParams({
      grant_type: 'authorization_code',
      client_id: client.client_id,
      code: wrongRedirect.code,
      redirect_uri: 'http://127.0.0.1:7777/other',
      code_verifier: wrongRedirect.verifier,
    }).toString(),
  );
  oauthErrorShape(t, res, 400, 'invalid_grant');

  const anotherClient = await approve(app, as, client, team.teamId, ['team:read']);
  await t.rejects(exchange(as, other, anotherClient), grantError('invalid_grant'), 'issued to another client');
  t.ok(await exchange(as, client, anotherClient), 'and still good for its own client');

  const late = await approve(app, as, client, team.teamId, ['team:read']);
  clock.advanceTo(clock.now().getTime() + 601_000);
  await t.rejects(exchange(as, client, late), grantError('invalid_grant'), 'codes last 10 minutes');
});

t.test('a code presented twice revokes the whole grant', async (t) => {
  const approval = await approve(app, as, client, team.teamId, ['team:read']);
  const tokens = await exchange(as, client, approval);
  t.equal((await api(tokens.access_token, '/team')).status, 200);
  await t.rejects(exchange(as, client, approval), grantError('invalid_grant'));
  errorShape(t, await api(tokens.access_token, '/team'), 401, 'invalid_api_key');
  await t.rejects(refresh(as, client, tokens.refresh_token!), grantError('invalid_grant'));
});

t.test('refresh rotates; a rotated refresh token presented again revokes the grant', async (t) => {
  const tokens = await exchange(as, client, await approve(app, as, client, team.teamId, ['team:read', 'emails:read']));
  const rotated = await refresh(as, client, tokens.refresh_token!);
  t.not(rotated.refresh_token, tokens.refresh_token, 'a new refresh token');
  t.not(rotated.access_token, tokens.access_token, 'a new access token');
  t.equal(rotated.scope, 'team:read emails:read');
  t.equal((await api(rotated.access_token, '/emails')).status, 200);
  t.equal((await api(tokens.access_token, '/team')).status, 200, 'earlier access tokens live out their hour');

  const narrowed = await refresh(as, client, rotated.refresh_token!, 'team:read');
  t.equal(narrowed.scope, 'team:read', 'a refresh may narrow');
  errorShape(t, await api(narrowed.access_token, '/emails'), 403, 'invalid_permission');
  await t.rejects(refresh(as, client, narrowed.refresh_token!, 'team:write'), grantError('invalid_scope'));
  await t.rejects(refresh(as, client, narrowed.refresh_token!, 'team:nope'), grantError('invalid_scope'));
  await t.rejects(refresh(as, other, narrowed.refresh_token!), grantError('invalid_grant'), 'another client');
  const wide = await refresh(as, client, narrowed.refresh_token!);
  t.equal(wide.scope, 'team:read emails:read', 'the next refresh may ask the whole grant again');

  await t.rejects(refresh(as, client, tokens.refresh_token!), grantError('invalid_grant'), 'replay of a rotated token');
  for (const token of [tokens, rotated, narrowed, wide])
    errorShape(t, await api(token.access_token, '/team'), 401, 'invalid_api_key');
  await t.rejects(refresh(as, client, wide.refresh_token!), grantError('invalid_grant'), 'the grant is gone');
});

t.test('revocation: an access token alone; a refresh token with its family, the grant stays', async (t) => {
  const approval = await approve(app, as, client, team.teamId, ['team:read']);
  const first = await exchange(as, client, approval);
  const second = await refresh(as, client, first.refresh_token!);

  const accessRevoked = await revoke(as, client, first.access_token);
  t.equal(accessRevoked.status, 200);
  t.equal(await accessRevoked.text(), '', 'empty body');
  await oauth.processRevocationResponse(await revoke(as, client, first.access_token));
  errorShape(t, await api(first.access_token, '/team'), 401, 'invalid_api_key');
  t.equal((await api(second.access_token, '/team')).status, 200, 'other tokens of the grant live on');

  t.equal((await revoke(as, other, second.access_token)).status, 200, 'another client’s token: 200');
  t.equal((await api(second.access_token, '/team')).status, 200, '...and nothing revoked');
  t.equal((await revoke(as, client, 'svco_unknown')).status, 200, 'an unknown token: 200');

  const third = await refresh(as, client, second.refresh_token!);
  t.equal((await revoke(as, client, third.refresh_token!)).status, 200);
  for (const token of [second, third]) errorShape(t, await api(token.access_token, '/team'), 401, 'invalid_api_key');
  await t.rejects(refresh(as, client, third.refresh_token!), grantError('invalid_grant'));
  const grants = await request(app.url, '/oauth/grants?limit=100', { token: team.token });
  t.ok(
    grants.body.data.some((grant: { id: string }) => grant.id === approval.grantId),
    'the grant stays listed',
  );

  const revokeCall = (body: Record<string, string>) =>
    request(app.url, '/oauth/revoke', {
      method: 'POST',
      rawBody: new URLSearchParams(body).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
  oauthErrorShape(t, await revokeCall({ client_id: client.client_id }), 400, 'invalid_request');
  oauthErrorShape(t, await revokeCall({ token: 'x' }), 400, 'invalid_request');
  oauthErrorShape(t, await revokeCall({ token: 'x', client_id: 'svcoc_unknown' }), 401, 'invalid_client');
  const hinted = await revokeCall({ token: 'x', client_id: client.client_id, token_type_hint: 'bogus' });
  t.equal(hinted.status, 200, 'token_type_hint is accepted and ignored');
});

t.test('access tokens expire after 3600 seconds; the refresh token still works', async (t) => {
  const tokens = await exchange(as, client, await approve(app, as, client, team.teamId, ['team:read']));
  const issued = clock.now().getTime();
  clock.advanceTo(issued + 3590_000);
  t.equal((await api(tokens.access_token, '/team')).status, 200, 'live before the hour');
  clock.advanceTo(issued + 3601_000);
  errorShape(t, await api(tokens.access_token, '/team'), 401, 'invalid_api_key');
  const renewed = await refresh(as, client, tokens.refresh_token!);
  t.equal((await api(renewed.access_token, '/team')).status, 200);
});

t.test('a suspended team’s tokens are refused as its keys are', async (t) => {
  const suspended = await app.createTeam('Suspended');
  const tokens = await exchange(as, client, await approve(app, as, client, suspended.teamId, ['team:read']));
  await app.runtime.services.teams.setRiskState(suspended.teamId, 'suspended');
  errorShape(t, await api(tokens.access_token, '/team'), 403, 'suspended_api_key');
});
