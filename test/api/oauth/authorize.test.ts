import * as oauth from 'oauth4webapi';
import t from 'tap';
import { startTestApp, UA } from '../../helpers/test-app.js';
import { discover, REDIRECT_URI, registerClient } from './oauth-fixture.js';

/**
 * GET /oauth/authorize: every problem is a 400 page that never redirects (an unknown client or
 * unregistered redirect URI, and, since every client registers itself, anything else found
 * before the person answers); a valid request goes to the consent page with an opaque request id.
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

t.test('every other error before consent: a 400 page naming the error, never a redirect', async (t) => {
  // RFC 9700 4.11.2: a client that registered itself must not turn /oauth/authorize into an open
  // redirector, so nothing the person has not answered sends the browser to its redirect URI.
  const cases: Array<[string, Record<string, string | string[] | undefined>, string]> = [
    ['no state', { ...good, state: undefined }, 'invalid_request'],
    ['state over 512', { ...good, state: 'x'.repeat(513) }, 'invalid_request'],
    ['no response_type', { ...good, response_type: undefined }, 'invalid_request'],
    ['response_type token', { ...good, response_type: 'token' }, 'unsupported_response_type'],
    ['no code_challenge', { ...good, code_challenge: undefined }, 'invalid_request'],
    ['a short code_challenge', { ...good, code_challenge: 'abc' }, 'invalid_request'],
    ['plain method', { ...good, code_challenge_method: 'plain' }, 'invalid_request'],
    ['no method', { ...good, code_challenge_method: undefined }, 'invalid_request'],
    ['an unknown scope', { ...good, scope: 'team:read emails:delete' }, 'invalid_scope'],
    ['a scope not registered', { ...good, scope: 'team:write' }, 'invalid_scope'],
    ['another resource', { ...good, resource: 'https://elsewhere.example/' }, 'invalid_target'],
    ['a resource with a fragment', { ...good, resource: `${app.url}/mcp#x` }, 'invalid_target'],
    ['a relative resource', { ...good, resource: '/mcp' }, 'invalid_target'],
    ['a resource with a query', { ...good, resource: `${app.url}/mcp?a=1` }, 'invalid_target'],
    ['another path of this server', { ...good, resource: `${app.url}/emails` }, 'invalid_target'],
    ['a resource that is not a URI', { ...good, resource: 'mcp' }, 'invalid_target'],
    ['a repeated parameter', { ...good, scope: ['team:read', 'team:read'] }, 'invalid_request'],
    [
      'the registered query kept, a bad scope',
      { ...good, redirect_uri: 'https://app.example/cb?tenant=7', scope: 'nope' },
      'invalid_scope',
    ],
  ];
  for (const [label, params, error] of cases) {
    const res = await authorize(params);
    t.equal(res.status, 400, `${label}: 400`);
    t.equal(res.location, null, `${label}: no redirect`);
    t.match(res.res.headers.get('content-type'), /text\/html/, `${label}: an HTML page`);
    t.match(res.text, /<h1>This sign-in link is not valid<\/h1>/, `${label}: the error page`);
    t.match(res.text, `(${error})`, `${label}: names ${error}`);
    t.notMatch(res.text, /app\.example|127\.0\.0\.1:7777/, `${label}: no link to the client`);
  }
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
