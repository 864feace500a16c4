import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  discoverOAuthProtectedResourceMetadata,
  extractWWWAuthenticateParams,
} from '@modelcontextprotocol/sdk/client/auth.js';
import t, { type Test } from 'tap';
import { errorShape, request, type HttpResponse } from '../../helpers/http.js';
import { startTestApp, UA } from '../../helpers/test-app.js';
import { approve, discover, exchange, registerClient, revoke } from '../oauth/oauth-fixture.js';
import { accessToken, mcpClient, mcpResource } from './mcp-fixture.js';

/** /mcp takes only OAuth access tokens; refusals tell an MCP client where to get one (RFC 9728). */
const app = await startTestApp();
t.teardown(() => app.close());
const team = await app.createTeam('MCP auth team');

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'plain', version: '1' } },
};
const post = (headers: Record<string, string>, path = '/mcp', userAgent?: string | null) =>
  request(app.url, path, {
    method: 'POST',
    body: initialize,
    headers: { accept: 'application/json, text/event-stream', ...headers },
    userAgent,
  });
const metadataUrl = `${app.url}/.well-known/oauth-protected-resource/mcp`;

function challenge(t: Test, response: HttpResponse, error?: string): void {
  const header = response.headers.get('www-authenticate') ?? '';
  t.match(header, /^Bearer /, 'a Bearer challenge');
  t.match(header, `resource_metadata="${metadataUrl}"`, 'names the resource metadata');
  if (error) t.match(header, `error="${error}"`);
  else t.notMatch(header, 'error=');
}

t.test('without a token: 401 missing_api_key with the resource metadata to discover', async (t) => {
  for (const path of ['/mcp', '/api/v1/mcp']) {
    const response = await post({}, path);
    errorShape(t, response, 401, 'missing_api_key');
    challenge(t, response);
    t.ok(response.headers.get('x-request-id'), 'a request id');
  }
  const garbled = await post({ authorization: 'Basic abc' });
  errorShape(t, garbled, 401, 'missing_api_key');
  challenge(t, garbled);

  const client = new Client({ name: 'mailroom-tests', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), {
    requestInit: { headers: { 'User-Agent': UA } },
  });
  await t.rejects(client.connect(transport), 'the SDK client cannot connect');
  await client.close();
});

t.test('an MCP client discovers the authorization server from the challenge', async (t) => {
  const response = await fetch(`${app.url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'user-agent': UA },
    body: JSON.stringify(initialize),
  });
  t.equal(response.status, 401);
  const { resourceMetadataUrl } = extractWWWAuthenticateParams(response);
  t.equal(resourceMetadataUrl?.href, metadataUrl);
  const metadata = await discoverOAuthProtectedResourceMetadata(`${app.url}/mcp`, { resourceMetadataUrl });
  t.match(metadata, { resource: `${app.url}/mcp`, authorization_servers: [app.url] });
  t.ok(metadata.scopes_supported?.includes('emails:send'));
  const discovered = await discoverOAuthProtectedResourceMetadata(`${app.url}/mcp`);
  t.same(discovered, metadata, 'the path-suffixed document is found without the header too');
  const root = await request(app.url, '/.well-known/oauth-protected-resource');
  t.equal(root.body.resource, app.url, 'the API’s own document is unchanged');
});

t.test('an unknown, or revoked, token: 401 invalid_api_key with error="invalid_token"', async (t) => {
  const unknown = await post({ authorization: 'Bearer svco_unknown' });
  errorShape(t, unknown, 401, 'invalid_api_key');
  challenge(t, unknown, 'invalid_token');

  const as = await discover(app);
  const oauthClient = await registerClient(as, { scope: 'emails:read' });
  const approval = await approve(app, as, oauthClient, team.teamId, ['emails:read'], mcpResource(app));
  const tokens = await exchange(as, oauthClient, approval);
  const live = await mcpClient(t, app, tokens.access_token);
  t.ok((await live.listTools()).tools.length > 0, 'the token works before');
  t.equal((await revoke(as, oauthClient, tokens.access_token)).status, 200);
  const revoked = await post({ authorization: `Bearer ${tokens.access_token}` });
  errorShape(t, revoked, 401, 'invalid_api_key');
  challenge(t, revoked, 'invalid_token');
  await t.rejects(live.listTools(), 'the connected client is refused from then on');
});

t.test('a token issued for the REST API, or for no resource, is refused like an unknown one', async (t) => {
  const restToken = await accessToken(app, team.teamId, ['emails:read'], null);
  const apiToken = await accessToken(app, team.teamId, ['emails:read'], `${app.url}/api/v1`);
  for (const token of [restToken, apiToken]) {
    const refused = await post({ authorization: `Bearer ${token}` });
    errorShape(t, refused, 401, 'invalid_api_key');
    challenge(t, refused, 'invalid_token');
    t.match(refused.body.message, `resource=${app.url}/mcp`, 'says which resource to ask for');
    t.equal((await request(app.url, '/emails', { token })).status, 200, 'the token works on the REST API');
  }
});

t.test('an API key is refused: the route takes only OAuth access tokens', async (t) => {
  const response = await post({ authorization: `Bearer ${team.token}` });
  errorShape(t, response, 403, 'invalid_permission');
  t.match(response.body.message, /OAuth access token/);
  const sending = await request(app.url, '/api-keys', {
    method: 'POST',
    token: team.token,
    body: { name: 'sender', permission: 'sending_access' },
  });
  errorShape(t, await post({ authorization: `Bearer ${sending.body.token}` }), 403, 'invalid_permission');
});

t.test('the API’s gates: User-Agent, method, body, rate-limit headers', async (t) => {
  const token = await accessToken(app, team.teamId, ['emails:read']);
  const noAgent = await post({ authorization: `Bearer ${token}` }, '/mcp', null);
  const body = errorShape(t, noAgent, 403, 'validation_error');
  t.equal(body.code, 1010);
  const get = await request(app.url, '/mcp', { token });
  errorShape(t, get, 405, 'method_not_allowed');
  t.equal(get.headers.get('allow'), 'POST');
  const notJson = await request(app.url, '/mcp', {
    method: 'POST',
    token,
    rawBody: '{',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
  });
  errorShape(t, notJson, 400, 'validation_error');
  const ok = await post({ authorization: `Bearer ${token}` });
  t.equal(ok.status, 200);
  t.match(ok.body, { jsonrpc: '2.0', id: 1, result: { serverInfo: { name: 'mailroom' } } });
  t.ok(ok.headers.get('ratelimit-limit'), 'rate-limit headers');
});

t.test('the team’s rate limit applies to /mcp', async (t) => {
  const limited = await startTestApp({ rateLimitPerSecond: 2 });
  t.teardown(() => limited.close());
  const limitedTeam = await limited.createTeam('Limited');
  const token = await accessToken(limited, limitedTeam.teamId, ['emails:read']);
  const statuses: number[] = [];
  for (let i = 0; i < 6; i += 1) {
    const response = await request(limited.url, '/mcp', {
      method: 'POST',
      token,
      body: { jsonrpc: '2.0', id: i, method: 'ping' },
      headers: { accept: 'application/json, text/event-stream' },
    });
    statuses.push(response.status);
    if (response.status === 429) {
      errorShape(t, response, 429, 'rate_limit_exceeded');
      t.ok(response.headers.get('retry-after'));
      break;
    }
  }
  t.ok(statuses.includes(429), `refused once the bucket is empty (${statuses.join(',')})`);
});

t.test(
  'a tool call takes its route’s token of the bucket; a call refused before its route takes one too',
  async (t) => {
    const limited = await startTestApp({ rateLimitPerSecond: 2 });
    t.teardown(() => limited.close());
    const limitedTeam = await limited.createTeam('Limited tools');
    const client = await mcpClient(t, limited, await accessToken(limited, limitedTeam.teamId, ['emails:read']));
    for (const name of ['list_emails', 'send_email']) {
      let refusal: { name?: string; statusCode?: number } | undefined;
      for (let i = 0; i < 10 && !refusal; i += 1) {
        const result = (await client.callTool({ name, arguments: {} })) as { content: Array<{ text: string }> };
        const body = JSON.parse(result.content[0]!.text);
        if (body?.name === 'rate_limit_exceeded') refusal = body;
      }
      t.match(refusal, { statusCode: 429, name: 'rate_limit_exceeded' }, `${name}: refused once the bucket is empty`);
      await new Promise((resolve) => setTimeout(resolve, 1100));
    }
  },
);
