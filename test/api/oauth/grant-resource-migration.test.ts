import t from 'tap';
import { addOAuthGrantsResource } from '../../../db/migrations/20261126-0088-add-oauth-grants-resource.js';
import { request } from '../../helpers/http.js';
import { startTestApp } from '../../helpers/test-app.js';
import { approve, discover, exchange, registerClient } from './oauth-fixture.js';

/**
 * 20261126-0088 adds oauth_grants.resource. Grants made before it take the resource their code
 * named (while the code row is kept), so an MCP client connected before the upgrade stays
 * connected; a grant whose code named none, or was purged, keeps null (the REST API).
 */
const app = await startTestApp();
t.teardown(() => app.close());
const { knex } = app.runtime.db;
const team = await app.createTeam('Upgrade');
const as = await discover(app);
const client = await registerClient(as, { scope: 'emails:read' });
const MCP = `${app.url}/mcp`;

t.test('the column is added once, filled from the grant’s code, and removed by down()', async (t) => {
  const mcpApproval = await approve(app, as, client, team.teamId, ['emails:read'], MCP);
  const restApproval = await approve(app, as, client, team.teamId, ['emails:read']);
  const purgedApproval = await approve(app, as, client, team.teamId, ['emails:read'], MCP);
  await knex('oauth_codes').where({ grant_id: purgedApproval.grantId }).delete();

  await addOAuthGrantsResource.down(knex);
  t.notOk(await knex.schema.hasColumn('oauth_grants', 'resource'), 'down() drops the column');
  await addOAuthGrantsResource.down(knex);
  t.pass('down() twice is harmless');
  await addOAuthGrantsResource.up(knex);
  await addOAuthGrantsResource.up(knex);
  t.ok(await knex.schema.hasColumn('oauth_grants', 'resource'), 'up() twice is harmless');

  const resourceOf = async (id: string) =>
    ((await knex('oauth_grants').where({ id }).first()) as { resource: string | null }).resource;
  t.equal(await resourceOf(mcpApproval.grantId), MCP, 'from the code');
  t.equal(await resourceOf(restApproval.grantId), null, 'the code named none');
  t.equal(await resourceOf(purgedApproval.grantId), null, 'no code left: the REST API');
  t.equal(
    await knex('oauth_codes')
      .count({ n: '*' })
      .first()
      .then((row) => Number(row?.n)),
    2,
    'codes kept',
  );

  const tokens = await exchange(as, client, mcpApproval);
  const mcp = await request(app.url, '/mcp', {
    method: 'POST',
    token: tokens.access_token,
    headers: { accept: 'application/json, text/event-stream' },
    body: { jsonrpc: '2.0', id: 1, method: 'ping' },
  });
  t.equal(mcp.status, 200, 'the upgraded MCP grant’s token works on /mcp');
  t.equal((await request(app.url, '/emails', { token: tokens.access_token })).status, 401, 'and only there');
});
