import t, { type Test } from 'tap';
import { createLogger } from '../../../lib/logger.js';
import { MessageSubmitter } from '../../../submission/message-submitter.js';
import { errorShape, request, type HttpResponse } from '../../helpers/http.js';
import { startTestApp } from '../../helpers/test-app.js';
import { mcpClient, toolBody } from '../mcp/mcp-fixture.js';
import {
  approve,
  discover,
  exchange,
  oauthErrorShape,
  REDIRECT_URI,
  refresh,
  registerClient,
} from './oauth-fixture.js';

/**
 * Audience binding (RFC 8707, and the MCP authorization rules: a server accepts only tokens
 * issued for it). A token carries the resource its grant was approved for: one issued for
 * <public URL>/mcp works only on /mcp (and the tool calls it makes in process), one issued for the
 * REST API (the public URL or /api/v1), or with no resource at all, works only on the REST API and
 * SMTP submission. The token endpoint keeps the resource through exchange and refresh and refuses
 * any other with invalid_target.
 */
const app = await startTestApp();
t.teardown(() => app.close());
const team = await app.createTeam('Audience team');
const as = await discover(app);
const client = await registerClient(as, { scope: 'emails:read emails:send' });
const scopes = ['emails:read', 'emails:send'];
const MCP = `${app.url}/mcp`;
const metadataUrl = `${app.url}/.well-known/oauth-protected-resource/mcp`;
const submitter = new MessageSubmitter({
  services: app.runtime.services,
  clock: app.runtime.clock,
  logger: createLogger('silent'),
});

const approval = (resource: string | null) => approve(app, as, client, team.teamId, scopes, resource);
const tokensFor = async (resource: string | null, tokenParams?: Record<string, string>) =>
  exchange(as, client, await approval(resource), REDIRECT_URI, tokenParams);
const rest = (token: string, path = '/emails') => request(app.url, path, { token });
const mcp = (token: string, path = '/mcp') =>
  request(app.url, path, {
    method: 'POST',
    token,
    headers: { accept: 'application/json, text/event-stream' },
    body: {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'plain', version: '1' } },
    },
  });
const tokenPost = (params: Record<string, string>) =>
  request(app.url, '/oauth/token', {
    method: 'POST',
    rawBody: new URLSearchParams(params).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });

/** 401 invalid_api_key (the spec's body) with the MCP challenge: error="invalid_token" and the metadata. */
function refusedOnMcp(t: Test, response: HttpResponse): void {
  errorShape(t, response, 401, 'invalid_api_key');
  const header = response.headers.get('www-authenticate') ?? '';
  t.match(header, /^Bearer /, 'a Bearer challenge');
  t.match(header, 'error="invalid_token"', 'error="invalid_token"');
  t.match(header, `resource_metadata="${metadataUrl}"`, 'names the MCP resource metadata');
}

t.test('a token issued for /mcp works on /mcp (and its tools) only', async (t) => {
  const { access_token: token } = await tokensFor(MCP, { resource: MCP });
  for (const path of ['/emails', '/api/v1/emails', '/team']) {
    const refused = errorShape(t, await rest(token, path), 401, 'invalid_api_key');
    t.match(refused.message, /not issued for this resource/, `${path}: says why`);
  }
  const ok = await mcp(token);
  t.equal(ok.status, 200, '/mcp accepts it');
  t.match(ok.body, { jsonrpc: '2.0', id: 1, result: { serverInfo: { name: 'mailroom' } } });
  t.equal((await mcp(token, '/api/v1/mcp')).status, 200, 'on both bases');
  const tools = await mcpClient(t, app, token);
  t.match(toolBody(t, await tools.callTool({ name: 'list_emails', arguments: {} })), { object: 'list' });
  await t.rejects(
    submitter.authenticate(token),
    { errorName: 'invalid_api_key', statusCode: 401 } as never,
    'SMTP submission refuses it',
  );
});

t.test('a token for the REST API, or with no resource, works on the REST API and SMTP only', async (t) => {
  const resources = [null, app.url, `${app.url}/`, `${app.url}/api/v1`, `${app.url}/api/v1/`];
  for (const resource of resources) {
    const { access_token: token } = await tokensFor(resource);
    t.equal((await rest(token)).status, 200, `${resource}: GET /emails`);
    t.equal((await rest(token, '/api/v1/emails')).status, 200, `${resource}: GET /api/v1/emails`);
    t.equal((await submitter.authenticate(token)).team.id, team.teamId, `${resource}: SMTP AUTH`);
    const refused = await mcp(token);
    refusedOnMcp(t, refused);
    t.match(refused.body.message, /not issued for this resource/);
  }
});

t.test('the token endpoint keeps the code’s resource and refuses another (invalid_target)', async (t) => {
  const mcpCode = await approval(MCP);
  const base = {
    grant_type: 'authorization_code',
    client_id: client.client_id,
    code: mcpCode.code,
    redirect_uri: REDIRECT_URI,
    code_verifier: mcpCode.verifier,
  };
  const refusals: Array<[string, string]> = [
    ['the REST API', app.url],
    ['the /api/v1 base', `${app.url}/api/v1`],
    ['another server', 'https://elsewhere.example/mcp'],
    ['a relative URI', '/mcp'],
    ['a fragment', `${MCP}#x`],
    ['a query', `${MCP}?a=1`],
    ['not a URI', 'mcp'],
    ['another path of this server', `${app.url}/emails`],
  ];
  for (const [label, resource] of refusals) {
    const refused = await tokenPost({ ...base, resource });
    oauthErrorShape(t, refused, 400, 'invalid_target');
    t.equal(refused.headers.get('cache-control'), 'no-store', `${label}: not cached`);
  }
  const repeated = await request(app.url, '/oauth/token', {
    method: 'POST',
    rawBody: `${new URLSearchParams(base)}&resource=${encodeURIComponent(MCP)}&resource=${encodeURIComponent(MCP)}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  oauthErrorShape(t, repeated, 400, 'invalid_request');

  const issued = await tokenPost({ ...base, resource: MCP });
  t.equal(issued.status, 200, 'a refused resource did not spend the code; the same resource is accepted');
  t.equal((await mcp(issued.body.access_token)).status, 200);
  errorShape(t, await rest(issued.body.access_token), 401, 'invalid_api_key');

  const restCode = await approval(null);
  const restBase = { ...base, code: restCode.code, code_verifier: restCode.verifier };
  oauthErrorShape(t, await tokenPost({ ...restBase, resource: MCP }), 400, 'invalid_target');
  const restIssued = await tokenPost({ ...restBase, resource: `${app.url}/api/v1` });
  t.equal(restIssued.status, 200, 'a code without resource may name the REST API at the token endpoint');
  t.equal((await rest(restIssued.body.access_token)).status, 200);
  refusedOnMcp(t, await mcp(restIssued.body.access_token));
});

t.test('a refresh keeps the grant’s resource: it may name it again, never another', async (t) => {
  const mcpTokens = await tokensFor(MCP, { resource: MCP });
  const refusedRefresh = await tokenPost({
    grant_type: 'refresh_token',
    client_id: client.client_id,
    refresh_token: mcpTokens.refresh_token!,
    resource: app.url,
  });
  oauthErrorShape(t, refusedRefresh, 400, 'invalid_target');
  const kept = await refresh(as, client, mcpTokens.refresh_token!);
  t.equal((await mcp(kept.access_token)).status, 200, 'refreshed without resource: still for /mcp');
  errorShape(t, await rest(kept.access_token), 401, 'invalid_api_key');
  const named = await refresh(as, client, kept.refresh_token!, undefined, MCP);
  t.equal((await mcp(named.access_token)).status, 200, 'refreshed naming /mcp again');

  const restTokens = await tokensFor(null);
  const widened = await tokenPost({
    grant_type: 'refresh_token',
    client_id: client.client_id,
    refresh_token: restTokens.refresh_token!,
    resource: MCP,
  });
  oauthErrorShape(t, widened, 400, 'invalid_target');
  const narrowed = await refresh(as, client, restTokens.refresh_token!, 'emails:read', `${app.url}/api/v1`);
  t.equal(narrowed.scope, 'emails:read', 'the refused refresh did not rotate the token');
  t.equal((await rest(narrowed.access_token)).status, 200);
  refusedOnMcp(t, await mcp(narrowed.access_token));
});

t.test('each protected-resource document names its own resource (RFC 9728)', async (t) => {
  const root = await request(app.url, '/.well-known/oauth-protected-resource');
  t.equal(root.status, 200);
  t.equal(root.body.resource, app.url, 'the REST API: the public URL');
  t.equal(root.body.resource_name, 'Mailroom REST API');
  const mcpDocument = await request(app.url, '/.well-known/oauth-protected-resource/mcp');
  t.equal(mcpDocument.status, 200);
  t.equal(mcpDocument.body.resource, MCP, 'the MCP server: <public URL>/mcp');
  t.equal(mcpDocument.body.resource_name, 'Mailroom MCP server');
});
