import t from 'tap';
import { request } from '../../helpers/http.js';
import { startTestApp } from '../../helpers/test-app.js';
import { oauthErrorShape, REDIRECT_URI } from './oauth-fixture.js';

/** POST /oauth/register (RFC 7591) and its management routes (RFC 7592): every rule, OAuth error shape. */
const app = await startTestApp({ config: { oauth: { registrationsPerIpPerHour: 1000 } } });
t.teardown(() => app.close());
const { token: apiKey } = await app.createTeam('Registrar');

const valid = { client_name: 'Mail helper', redirect_uris: [REDIRECT_URI] };
const register = (body: unknown) => request(app.url, '/oauth/register', { method: 'POST', body });

t.test('a registration answers 201 with the spec’s fields and a one-time registration token', async (t) => {
  const res = await register({
    ...valid,
    redirect_uris: ['https://app.example/cb', 'http://[::1]/cb', 'http://localhost:8080/x', REDIRECT_URI],
    scope: 'emails:send team:read',
    client_uri: 'https://app.example',
    logo_uri: 'https://app.example/logo.png',
    software_id: 'helper',
    software_version: '1.2.3',
    contacts: ['ignored@example.com'],
  });
  t.equal(res.status, 201);
  t.equal(res.headers.get('cache-control'), 'no-store');
  const body = res.body;
  t.match(body.client_id, /^svcoc_[A-Za-z0-9_-]{16,}$/);
  t.match(body.registration_access_token, /^svcor_[A-Za-z0-9_-]{40,}$/);
  t.equal(body.registration_client_uri, `${app.url}/oauth/register/${body.client_id}`);
  t.type(body.client_id_issued_at, 'number');
  t.ok(Math.abs(body.client_id_issued_at - Date.now() / 1000) < 60, 'Unix seconds');
  t.match(body, {
    client_name: 'Mail helper',
    redirect_uris: ['https://app.example/cb', 'http://[::1]/cb', 'http://localhost:8080/x', REDIRECT_URI],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    scope: 'emails:send team:read',
    client_uri: 'https://app.example',
    logo_uri: 'https://app.example/logo.png',
    software_id: 'helper',
    software_version: '1.2.3',
  });
  t.notOk('contacts' in body, 'unknown metadata is ignored (RFC 7591 2)');
  t.notOk('client_secret' in body, 'public clients only');
});

t.test('defaults: both grant types, every scope of the catalogue', async (t) => {
  const res = await register(valid);
  t.equal(res.status, 201);
  t.same(res.body.grant_types, ['authorization_code', 'refresh_token']);
  t.match(res.body.scope, /team:read/);
  t.match(res.body.scope, /emails:send/);
  const onlyCode = await register({ ...valid, grant_types: ['authorization_code'] });
  t.same(onlyCode.body.grant_types, ['authorization_code']);
});

const refusals: Array<[string, unknown, number, string]> = [
  ['redirect_uris missing', { client_name: 'x' }, 400, 'invalid_redirect_uri'],
  ['redirect_uris empty', { ...valid, redirect_uris: [] }, 400, 'invalid_redirect_uri'],
  ['redirect_uris not an array', { ...valid, redirect_uris: REDIRECT_URI }, 400, 'invalid_redirect_uri'],
  [
    'more than 10 redirect URIs',
    { ...valid, redirect_uris: Array.from({ length: 11 }, (_, i) => `https://a.example/${i}`) },
    400,
    'invalid_redirect_uri',
  ],
  ['http on a public host', { ...valid, redirect_uris: ['http://app.example/cb'] }, 400, 'invalid_redirect_uri'],
  ['http on a private address', { ...valid, redirect_uris: ['http://10.0.0.1/cb'] }, 400, 'invalid_redirect_uri'],
  ['a custom scheme', { ...valid, redirect_uris: ['com.example.app:/cb'] }, 400, 'invalid_redirect_uri'],
  ['a fragment', { ...valid, redirect_uris: ['https://app.example/cb#x'] }, 400, 'invalid_redirect_uri'],
  ['not a URL', { ...valid, redirect_uris: ['not a url'] }, 400, 'invalid_redirect_uri'],
  ...(
    [
      ['CR LF and a header after it', 'https://app.example/cb\r\nX-Injected: 1'],
      ['a bare LF', 'https://app.example/cb\nx'],
      ['a bare CR', 'https://app.example/cb\r'],
      ['a NUL', 'https://app.example/cb\u0000'],
      ['a tab in the host', 'https://app.\texample/cb'],
      ['a space', 'https://app.example/c b'],
      ['a leading space', ' https://app.example/cb'],
      ['a trailing space', 'https://app.example/cb '],
      ['no host', 'https:///cb'],
      ['one slash', 'https:/app.example/cb'],
      ['no slashes', 'https:app.example/cb'],
      ['backslashes', 'https:\\\\app.example\\cb'],
      ['user information', 'https://user@app.example/cb'],
      ['a host the parser rewrites', 'http://0x7f.1/cb'],
      ['a shortened loopback address', 'http://127.1/cb'],
      ['a percent-encoded host', 'https://%61pp.example/cb'],
      ['a non-ASCII character', 'https://app.example/caf\u00e9'],
      ['an empty string', ''],
    ] as const
  ).map(([rule, uri]): [string, unknown, number, string] => [
    `a malformed URI: ${rule}`,
    { ...valid, redirect_uris: ['https://fine.example/cb', uri] },
    400,
    'invalid_redirect_uri',
  ]),
  ['a non-string URI', { ...valid, redirect_uris: [42] }, 400, 'invalid_redirect_uri'],
  ['client_name missing', { redirect_uris: [REDIRECT_URI] }, 400, 'invalid_client_metadata'],
  ['client_name blank', { ...valid, client_name: '  ' }, 400, 'invalid_client_metadata'],
  ['client_name too long', { ...valid, client_name: 'x'.repeat(256) }, 400, 'invalid_client_metadata'],
  ['an unknown scope', { ...valid, scope: 'emails:send emails:delete' }, 400, 'invalid_client_metadata'],
  ['an empty scope', { ...valid, scope: '' }, 400, 'invalid_client_metadata'],
  ['client_credentials', { ...valid, grant_types: ['client_credentials'] }, 400, 'invalid_client_metadata'],
  ['refresh_token alone', { ...valid, grant_types: ['refresh_token'] }, 400, 'invalid_client_metadata'],
  ['response type token', { ...valid, response_types: ['token'] }, 400, 'invalid_client_metadata'],
  ['two response types', { ...valid, response_types: ['code', 'token'] }, 400, 'invalid_client_metadata'],
  [
    'a confidential auth method',
    { ...valid, token_endpoint_auth_method: 'client_secret_basic' },
    400,
    'invalid_client_metadata',
  ],
  ['client_uri not https', { ...valid, client_uri: 'http://app.example' }, 400, 'invalid_client_metadata'],
  ['logo_uri not https', { ...valid, logo_uri: 'ftp://app.example/l.png' }, 400, 'invalid_client_metadata'],
  ['software_id not a string', { ...valid, software_id: 7 }, 400, 'invalid_client_metadata'],
  ['a JSON array body', [valid], 400, 'invalid_request'],
];

for (const [rule, body, status, error] of refusals) {
  t.test(`refused: ${rule}`, async (t) => oauthErrorShape(t, await register(body), status, error));
}

t.test('a body that is not JSON is invalid_request', async (t) => {
  const res = await request(app.url, '/oauth/register', {
    method: 'POST',
    rawBody: '{"client_name":',
    headers: { 'content-type': 'application/json' },
  });
  oauthErrorShape(t, res, 400, 'invalid_request');
});

t.test('management with the registration access token (RFC 7592)', async (t) => {
  const created = (await register({ ...valid, scope: 'team:read' })).body;
  const other = (await register(valid)).body;
  const path = `/oauth/register/${created.client_id}`;
  const withToken = { token: created.registration_access_token };

  const read = await request(app.url, path, withToken);
  t.equal(read.status, 200);
  t.match(read.body, { client_id: created.client_id, client_name: 'Mail helper', scope: 'team:read' });
  t.notOk('registration_access_token' in read.body, 'the token is shown once');

  const refusedWith = async (token: string | undefined, label: string) => {
    const res = await request(app.url, path, { token });
    oauthErrorShape(t, res, 401, 'invalid_token');
    t.equal(res.headers.get('www-authenticate'), 'Bearer error="invalid_token"', `${label}: WWW-Authenticate`);
  };
  await refusedWith(undefined, 'no token');
  await refusedWith(apiKey, 'an API key');
  await refusedWith(other.registration_access_token, 'another client’s token');
  await refusedWith('svcor_unknown', 'an unknown token');
  const unknownClient = await request(app.url, '/oauth/register/svcoc_nope', withToken);
  oauthErrorShape(t, unknownClient, 401, 'invalid_token');

  const replaced = await request(app.url, path, {
    ...withToken,
    method: 'PUT',
    body: { client_id: created.client_id, client_name: 'Renamed', redirect_uris: ['https://new.example/cb'] },
  });
  t.equal(replaced.status, 200);
  t.match(replaced.body, { client_name: 'Renamed', redirect_uris: ['https://new.example/cb'] });
  t.match(replaced.body.scope, /emails:send/, 'omitted fields take their defaults: the body replaces the registration');
  t.equal((await request(app.url, path, withToken)).body.client_name, 'Renamed', 'stored');
  oauthErrorShape(
    t,
    await request(app.url, path, { ...withToken, method: 'PUT', body: { ...valid, client_id: other.client_id } }),
    400,
    'invalid_client_metadata',
  );
  oauthErrorShape(
    t,
    await request(app.url, path, {
      ...withToken,
      method: 'PUT',
      body: { client_id: created.client_id, client_name: 'x', redirect_uris: ['http://evil.example/cb'] },
    }),
    400,
    'invalid_redirect_uri',
  );

  oauthErrorShape(
    t,
    await request(app.url, path, {
      ...withToken,
      method: 'PUT',
      body: { client_id: created.client_id, client_name: 'x', redirect_uris: ['https://app.example/cb\r\nX: 1'] },
    }),
    400,
    'invalid_redirect_uri',
  );

  const deleted = await request(app.url, path, { ...withToken, method: 'DELETE' });
  t.equal(deleted.status, 204);
  t.equal(deleted.text, '');
  oauthErrorShape(t, await request(app.url, path, withToken), 401, 'invalid_token');
  oauthErrorShape(t, await request(app.url, path, { ...withToken, method: 'DELETE' }), 401, 'invalid_token');
});
