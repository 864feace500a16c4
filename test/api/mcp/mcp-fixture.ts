import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Test } from 'tap';
import type { ErrorBody } from '../../../lib/errors.js';
import { UA, type TestApp } from '../../helpers/test-app.js';
import { approve, discover, exchange, REDIRECT_URI, registerClient } from '../oauth/oauth-fixture.js';

/** The resource an MCP client names at /oauth/authorize and /oauth/token (RFC 8707): the /mcp route. */
export const mcpResource = (app: TestApp) => `${app.url}/mcp`;

/**
 * What the MCP tests share: real OAuth access tokens issued for /mcp (or, resource null, for the
 * REST API), and the SDK's client on /mcp.
 */
export async function accessToken(
  app: TestApp,
  teamId: string,
  scopes: string[],
  resource: string | null = mcpResource(app),
): Promise<string> {
  const as = await discover(app);
  const client = await registerClient(as, { scope: scopes.join(' ') });
  const approval = await approve(app, as, client, teamId, scopes, resource);
  return (await exchange(as, client, approval, REDIRECT_URI, resource ? { resource } : undefined)).access_token;
}

/** The SDK client connected to /mcp (or `path`) with the token; closed when the test ends. */
export async function mcpClient(t: Test, app: TestApp, token: string | null, path = '/mcp'): Promise<Client> {
  const client = new Client({ name: 'mailroom-tests', version: '1.0.0' });
  const headers: Record<string, string> = { 'User-Agent': UA };
  if (token !== null) headers.Authorization = `Bearer ${token}`;
  await client.connect(new StreamableHTTPClientTransport(new URL(app.url + path), { requestInit: { headers } }));
  t.teardown(() => client.close());
  return client;
}

/** A tool's success: the API's JSON body, as text and as structured content. */
export function toolBody(t: Test, result: unknown): any {
  const call = result as CallToolResult;
  t.notOk(call.isError, `not an error: ${JSON.stringify(call.content)}`);
  const text = call.content[0];
  t.equal(text?.type, 'text');
  return JSON.parse((text as { text: string }).text);
}

/** A tool's refusal: isError, and the spec's error body with this status and name. */
export function toolError(t: Test, result: unknown, status: number, name: string): ErrorBody {
  const call = result as CallToolResult;
  t.equal(call.isError, true, 'isError');
  const body = JSON.parse((call.content[0] as { text: string }).text) as ErrorBody;
  t.equal(body.statusCode, status, `statusCode ${status}`);
  t.equal(body.name, name, `name ${name}`);
  t.type(body.message, 'string');
  const allowed = new Set(['statusCode', 'name', 'message', 'errors', 'code', 'claimable', 'details']);
  t.same(
    Object.keys(body).filter((key) => !allowed.has(key)),
    [],
    'nothing outside the error schema',
  );
  t.same(call.structuredContent, body, 'structured content is the same body');
  return body;
}
