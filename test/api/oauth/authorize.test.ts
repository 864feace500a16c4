import * as oauth from 'oauth4webapi';
import t from 'tap';
import { startTestApp, UA } from '../../helpers/test-app.js';
import { discover, REDIRECT_URI, registerClient } from './oauth-fixture.js';

/**
 * GET /oauth/authorize: an unknown client or unregistered redirect URI is a 400 page and never
 * redirects; every other problem goes back to the client with error, error_description and
 * state; a valid request goes to the consent page with an opaque request id.
 */
const app = await startTestApp();
t.teardown(() => app.close());
const as = await discover(app);
const client = await registerClient(as, {
  scope: 'team:read emails:read',
  redirect_uris: [REDIRECT_URI, 'https://app.example/cb?tenant=7'],
});
const challenge = await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier());
const good = {
  response_type: 'code',
  client_id: client.client_id,
  redirect_uri: REDIRECT_URI,
  code_challenge: challenge,
  code_challenge_method: 'S256',
  state: 'xyz-state',
};

async function authorize(params: Record<string, string | string[] | undefined>) {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params))
    for (const v of value === undefined ? [] : Array.isArray(value) ? value : [value]) search.append(name, v);
  const res = await fetch(`${app.url}/oauth/authorize?${search}`, {
    redirect: 'manual',
    headers: { 'user-agent': UA },
  });
  const location = res.headers.get('location');
  return { status: res.status, location: location ? new URL(location, app.url) : null, text: await res.text(), res };
}

t.test('unknown client or unregistered redirect URI: a 400 page, no redirect', async (t) => {
  const cases: Array<[string, Record<string, string | string[] | undefined>]> = [
    ['no client_id', { ...good, client_id: undefined }],
    ['unknown client', { ...good, client_id: 'svcoc_unknown' }],
    ['repeated client_id', { ...good, client_id: [client.client_id, client.client_id] }],
    ['no redirect_uri', { ...good, redirect_uri: undefined }],
    ['unregistered redirect_uri', { ...good, redirect_uri: 'https://evil.example/cb' }],
    ['a prefix of a registered URI', { ...good, redirect_uri: 'http://127.0.0.1:7777/callback/more' }],
    ['another port', { ...good, redirect_uri: 'http://127.0.0.1:7778/callback' }],
    ['registered query dropped', { ...good, redirect_uri: 'https://app.example/cb' }],
  ];
  for (const [label, params] of cases) {
    const res = await authorize(params);
    t.equal(res.status, 400, `${label}: 400`);
    t.equal(res.location, null, `${label}: no redirect`);
    t.match(res.res.headers.get('content-type'), /text\/html/, `${label}: an HTML page`);
  }
});

t.test('other errors redirect to the client with error, error_description and state', async (t) => {
  const cases: Array<[string, Record<string, string | string[] | undefined>, string, string | null]> = [
    ['no state', { ...good, state: undefined }, 'invalid_request', null],
    ['state over 512', { ...good, state: 'x'.repeat(513) }, 'invalid_request', null],
    ['no response_type', { ...good, response_type: undefined }, 'invalid_request', 'xyz-state'],
    ['response_type token', { ...good, response_type: 'token' }, 'unsupported_response_type', 'xyz-state'],
    ['no code_challenge', { ...good, code_challenge: undefined }, 'invalid_request', 'xyz-state'],
    ['a short code_challenge', { ...good, code_challenge: 'abc' }, 'invalid_request', 'xyz-state'],
    ['plain method', { ...good, code_challenge_method: 'plain' }, 'invalid_request', 'xyz-state'],
    ['no method', { ...good, code_challenge_method: undefined }, 'invalid_request', 'xyz-state'],
    ['an unknown scope', { ...good, scope: 'team:read emails:delete' }, 'invalid_scope', 'xyz-state'],
    ['a scope not registered', { ...good, scope: 'team:write' }, 'invalid_scope', 'xyz-state'],
    ['another resource', { ...good, resource: 'https://elsewhere.example/' }, 'invalid_target', 'xyz-state'],
    ['a repeated parameter', { ...good, scope: ['team:read', 'team:read'] }, 'invalid_request', 'xyz-state'],
  ];
  for (const [label, params, error, state] of cases) {
    const res = await authorize(params);
    t.equal(res.status, 302, `${label}: 302`);
    t.equal(`${res.location?.origin}${res.location?.pathname}`, REDIRECT_URI, `${label}: to the client`);
    t.equal(res.location?.searchParams.get('error'), error, `${label}: ${error}`);
    t.ok(res.location?.searchParams.get('error_description'), `${label}: error_description`);
    t.equal(res.location?.searchParams.get('state'), state, `${label}: state`);
    t.equal(res.location?.searchParams.get('code'), null, `${label}: no code`);
  }
  const keepsQuery = await authorize({ ...good, redirect_uri: 'https://app.example/cb?tenant=7', scope: 'nope' });
  t.equal(keepsQuery.location?.searchParams.get('tenant'), '7', 'the registered query is kept');
  t.equal(keepsQuery.location?.searchParams.get('error'), 'invalid_scope');
});

t.test('a valid request goes to the consent page, parked for it', async (t) => {
  const res = await authorize({ ...good, resource: `${app.url}/api/v1` });
  t.equal(res.status, 302);
  t.equal(res.location?.pathname, '/oauth/consent');
  const requestId = res.location?.searchParams.get('request') ?? '';
  t.match(requestId, /^[A-Za-z0-9_-]{32}$/, 'an opaque id');
  t.notOk(res.location?.search.includes('xyz-state'), 'nothing of the request in the URL');
  const parked = await app.runtime.services.oauthAuthorization.pending(requestId);
  t.same(parked, {
    clientId: client.client_id,
    clientName: 'Test app',
    redirectUri: REDIRECT_URI,
    scopes: ['team:read', 'emails:read'],
    state: 'xyz-state',
    codeChallenge: challenge,
    resource: `${app.url}/api/v1`,
  });
  const narrowed = await authorize({ ...good, scope: 'emails:read' });
  const id = narrowed.location?.searchParams.get('request') ?? '';
  t.same((await app.runtime.services.oauthAuthorization.pending(id))?.scopes, ['emails:read']);
  for (const resource of [app.url, `${app.url}/`, `${app.url}/mcp`])
    t.equal((await authorize({ ...good, resource })).location?.pathname, '/oauth/consent', `resource ${resource}`);
  const { oauthAuthorization } = app.runtime.services;
  t.same((await oauthAuthorization.answer(id))?.scopes, ['emails:read'], 'the first answer takes the request');
  t.equal(await oauthAuthorization.pending(id), undefined, 'answered requests are gone');
  t.equal(await oauthAuthorization.answer(id), undefined, 'and cannot be answered twice');
});
