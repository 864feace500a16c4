import t from 'tap';
import { errorShape, request } from '../../helpers/http.js';
import { startTestApp } from '../../helpers/test-app.js';
import { markedVerifiedDomain } from '../../helpers/verified-domain.js';
import { accessToken, mcpClient, toolBody, toolError } from './mcp-fixture.js';

/**
 * The MCP server with the SDK's own client: the tools follow the token's scopes, and each is its
 * REST route, with the same validation, errors, tenant and request log.
 */
const app = await startTestApp();
t.teardown(() => app.close());
const team = await app.createTeam('MCP team');
const other = await app.createTeam('Other team');
await markedVerifiedDomain(app, team.teamId, 'mcp.example.com');
await markedVerifiedDomain(app, other.teamId, 'other.example.com');
const sendToken = await accessToken(app, team.teamId, ['emails:send', 'emails:read']);

const email = { from: 'Robot <robot@mcp.example.com>', to: 'someone@example.org', subject: 'Hi', text: 'Hello' };

t.test('the tools listed are those the token’s scopes reach, with their routes’ input schemas', async (t) => {
  const client = await mcpClient(t, app, sendToken);
  t.match(client.getServerVersion(), { name: 'mailroom' });
  const { tools } = await client.listTools();
  t.same(tools.map((tool) => tool.name).sort(), ['get_email', 'get_email_metrics', 'list_emails', 'send_email']);
  const send = tools.find((tool) => tool.name === 'send_email')!;
  t.match(send.inputSchema, { type: 'object', required: ['to'] });
  t.ok(send.inputSchema.properties?.subject, 'the body’s fields are the arguments');
  t.ok(send.inputSchema.properties?.idempotency_key, 'the Idempotency-Key as an argument');
  t.match(tools.find((tool) => tool.name === 'get_email')!.inputSchema, { required: ['email_id'] });
  t.equal(tools.find((tool) => tool.name === 'list_emails')!.annotations?.readOnlyHint, true);

  const broadcasts = await mcpClient(t, app, await accessToken(app, team.teamId, ['broadcasts:read']));
  t.same(
    (await broadcasts.listTools()).tools.map((tool) => tool.name),
    ['list_broadcasts'],
  );
  t.same(toolBody(t, await broadcasts.callTool({ name: 'list_broadcasts', arguments: {} })), {
    object: 'list',
    has_more: false,
    data: [],
  });

  const reader = await mcpClient(
    t,
    app,
    await accessToken(app, team.teamId, ['domains:read', 'templates:read', 'contacts:read']),
  );
  t.same((await reader.listTools()).tools.map((tool) => tool.name).sort(), [
    'list_contacts',
    'list_domains',
    'list_templates',
  ]);
  const domains = toolBody(t, await reader.callTool({ name: 'list_domains', arguments: {} }));
  t.same(
    domains.data.map((domain: { name: string }) => domain.name),
    ['mcp.example.com'],
    'list_domains: this team’s domains only',
  );
  t.match(toolBody(t, await reader.callTool({ name: 'list_templates', arguments: {} })), { object: 'list' });
  t.match(toolBody(t, await reader.callTool({ name: 'list_contacts', arguments: {} })), { object: 'list' });

  const teamOnly = await mcpClient(t, app, await accessToken(app, team.teamId, ['team:read']));
  t.same((await teamOnly.listTools()).tools, [], 'no tool for team:read');
});

t.test('send_email sends as POST /emails does; a full_access key reads the email back', async (t) => {
  const client = await mcpClient(t, app, sendToken);
  const sent = toolBody(t, await client.callTool({ name: 'send_email', arguments: email }));
  t.match(sent, { id: /^[0-9a-f-]{36}$/ });
  const read = await request(app.url, `/emails/${sent.id}`, { token: team.token });
  t.equal(read.status, 200);
  t.match(read.body, { id: sent.id, from: email.from, to: [email.to], subject: 'Hi' });

  const got = toolBody(t, await client.callTool({ name: 'get_email', arguments: { email_id: sent.id } }));
  t.same(got, read.body, 'get_email is GET /emails/{id}');
  const listed = toolBody(t, await client.callTool({ name: 'list_emails', arguments: { limit: 1 } }));
  t.equal(listed.data[0].id, sent.id, 'list_emails, limit passed as the query string');

  const logs = await request(app.url, '/logs', { token: team.token });
  t.ok(
    logs.body.data.some(
      (log: { endpoint: string; method: string; response_status: number }) =>
        log.endpoint === '/emails' && log.method === 'POST' && log.response_status === 200,
    ),
    'the tool call is in the request log as POST /emails',
  );
});

t.test('an idempotency_key makes a retried send one email', async (t) => {
  const client = await mcpClient(t, app, sendToken);
  const args = { ...email, idempotency_key: `mcp-${Date.now()}` };
  const first = toolBody(t, await client.callTool({ name: 'send_email', arguments: args }));
  const second = toolBody(t, await client.callTool({ name: 'send_email', arguments: args }));
  t.equal(second.id, first.id, 'the stored answer');
  const conflict = await client.callTool({ name: 'send_email', arguments: { ...args, subject: 'Other' } });
  toolError(t, conflict, 409, 'invalid_idempotent_request');
});

t.test('invalid input is the route’s refusal, as isError', async (t) => {
  const client = await mcpClient(t, app, sendToken);
  const missing = toolError(
    t,
    await client.callTool({ name: 'send_email', arguments: { from: email.from } }),
    422,
    'missing_required_field',
  );
  t.ok(
    missing.errors?.some((error) => error.path === 'to'),
    'names the missing field',
  );
  const rest = await request(app.url, '/emails', { method: 'POST', token: team.token, body: { from: email.from } });
  t.same(
    JSON.parse(
      ((await client.callTool({ name: 'send_email', arguments: { from: email.from } })).content as any)[0].text,
    ),
    rest.body,
    'the same body as the REST route',
  );
  toolError(t, await client.callTool({ name: 'get_email', arguments: { email_id: 'nope' } }), 422, 'invalid_parameter');
  toolError(t, await client.callTool({ name: 'get_email', arguments: {} }), 422, 'missing_required_parameter');
  toolError(t, await client.callTool({ name: 'list_emails', arguments: { limit: 'many' } }), 422, 'invalid_parameter');
  const unverified = await client.callTool({
    name: 'send_email',
    arguments: { ...email, from: 'robot@unknown.example.net' },
  });
  t.equal((unverified as { isError?: boolean }).isError, true, 'a domain the team has not verified');
});

t.test('a tool outside the token’s scopes is refused; an unknown tool is a protocol error', async (t) => {
  const readOnly = await mcpClient(t, app, await accessToken(app, team.teamId, ['emails:read']));
  t.notOk(
    (await readOnly.listTools()).tools.some((tool) => tool.name === 'send_email'),
    'not listed',
  );
  const refused = await readOnly.callTool({ name: 'send_email', arguments: email });
  t.match(toolError(t, refused, 403, 'invalid_permission').message, /emails:send/);
  toolError(t, await readOnly.callTool({ name: 'list_domains', arguments: {} }), 403, 'invalid_permission');
  await t.rejects(readOnly.callTool({ name: 'no_such_tool', arguments: {} }), { code: -32602 });
});

t.test('a token of one team does not reach another team’s email', async (t) => {
  const sent = await request(app.url, '/emails', {
    method: 'POST',
    token: other.token,
    body: { ...email, from: 'robot@other.example.com' },
  });
  t.equal(sent.status, 200);
  const client = await mcpClient(t, app, sendToken);
  const foreign = await client.callTool({ name: 'get_email', arguments: { email_id: sent.body.id } });
  const random = await client.callTool({
    name: 'get_email',
    arguments: { email_id: '00000000-0000-4000-8000-000000000000' },
  });
  toolError(t, foreign, 404, 'not_found');
  t.same(
    (foreign as { content: unknown }).content,
    (random as { content: unknown }).content,
    'the same answer as an unknown id',
  );
  const restToken = await accessToken(app, team.teamId, ['emails:read'], null);
  errorShape(t, await request(app.url, `/emails/${sent.body.id}`, { token: restToken }), 404, 'not_found');
  errorShape(t, await request(app.url, `/emails/${sent.body.id}`, { token: sendToken }), 401, 'invalid_api_key');
});
