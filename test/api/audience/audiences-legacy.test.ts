import { Resend } from 'resend';
import t from 'tap';
import { errorShape, request } from '../../helpers/http.js';
import { startTestApp } from '../../helpers/test-app.js';

/**
 * The deprecated /audiences routes (issue 38, item 8): aliases of the segment routes in the
 * shapes of Resend's OpenAPI (audiences/create, list, get, remove), each declared like its
 * segment twin. The resend SDK 6.x has no client of these paths (its `audiences` resource is
 * the Segments class and calls /segments), so the paths are called over HTTP and the SDK
 * reads the same records through `resend.audiences`.
 */
const app = await startTestApp();
t.teardown(() => app.close());

type Team = { teamId: string; token: string };
const call = (team: Team, method: string, path: string, body?: unknown) =>
  request(app.url, path, { method, token: team.token, body });
const team = await app.createTeam('Audiences');
const neighbour = await app.createTeam('Neighbour');
const resend = new Resend(team.token, { baseUrl: `${app.url}/api/v1` } as never);

t.test('create, list, retrieve and delete an audience in Resend’s shapes, on both bases', async (t) => {
  const created = await call(team, 'POST', '/audiences', { name: 'Registered users' });
  t.equal(created.status, 201);
  t.same(Object.keys(created.body).sort(), ['id', 'name', 'object']);
  t.match(created.body, { object: 'audience', name: 'Registered users' });
  const id = created.body.id as string;

  const got = await call(team, 'GET', `/api/v1/audiences/${id}`);
  t.equal(got.status, 200);
  t.same(Object.keys(got.body).sort(), ['created_at', 'id', 'name', 'object']);
  t.match(got.body, { object: 'audience', id, name: 'Registered users' });
  t.ok(!Number.isNaN(Date.parse(got.body.created_at)), 'created_at is a timestamp');

  await call(team, 'POST', '/audiences', { name: 'Newer' });
  const list = await call(team, 'GET', '/audiences');
  t.equal(list.status, 200);
  t.match(list.body, { object: 'list', has_more: false });
  t.same(
    list.body.data.map((a: { name: string }) => a.name),
    ['Newer', 'Registered users'],
    'newest first',
  );
  t.same(Object.keys(list.body.data[0]).sort(), ['created_at', 'id', 'name']);
  const page = await call(team, 'GET', '/audiences?limit=1');
  t.match(page.body, { has_more: true });
  t.equal(page.body.data.length, 1);

  const removed = await call(team, 'DELETE', `/audiences/${id}`);
  t.equal(removed.status, 200);
  t.same(removed.body, { object: 'audience', id, deleted: true });
  errorShape(t, await call(team, 'GET', `/audiences/${id}`), 404, 'not_found');
  errorShape(t, await call(team, 'DELETE', `/audiences/${id}`), 404, 'not_found');
  errorShape(t, await call(team, 'GET', `/segments/${id}`), 404, 'not_found');
});

t.test('an audience is a segment without a filter: the SDK’s audiences and segments read it', async (t) => {
  const created = await call(team, 'POST', '/audiences', { name: 'By hand' });
  const id = created.body.id as string;
  const segment = await call(team, 'GET', `/segments/${id}`);
  t.match(segment.body, { object: 'segment', id, name: 'By hand', filter: null });

  const got = await resend.audiences.get(id);
  t.equal(got.error, null);
  t.match(got.data, { id, name: 'By hand' });
  const listed = await resend.audiences.list();
  t.ok(
    listed.data!.data.some((a) => a.id === id),
    'listed by resend.audiences.list()',
  );

  // A contact added to it through the older /audiences/{id}/contacts alias.
  const contact = await call(team, 'POST', `/audiences/${id}/contacts`, { email: 'hand@example.com' });
  t.equal(contact.status, 201);
  const members = await call(team, 'GET', `/audiences/${id}/contacts`);
  t.same(
    members.body.data.map((c: { email: string }) => c.email),
    ['hand@example.com'],
  );

  const viaSdk = await resend.audiences.create({ name: 'From the SDK' } as never);
  t.equal(viaSdk.error, null);
  const again = await call(team, 'GET', `/audiences/${viaSdk.data!.id}`);
  t.match(again.body, { object: 'audience', id: viaSdk.data!.id, name: 'From the SDK' });
  const removed = await resend.audiences.remove(viaSdk.data!.id);
  t.match(removed.data, { id: viaSdk.data!.id, deleted: true });
});

t.test('another team’s audience is 404 like an unknown one', async (t) => {
  const theirs = (await call(neighbour, 'POST', '/audiences', { name: 'Theirs' })).body.id as string;
  errorShape(t, await call(team, 'GET', `/audiences/${theirs}`), 404, 'not_found');
  errorShape(t, await call(team, 'DELETE', `/audiences/${theirs}`), 404, 'not_found');
  errorShape(t, await call(team, 'GET', '/audiences/0199a0a0-0000-7000-8000-00000000ffff'), 404, 'not_found');
  errorShape(t, await call(team, 'GET', '/audiences/not-a-uuid'), 404, 'not_found');
  const sdk = await resend.audiences.get(theirs);
  t.match(sdk.error, { name: 'not_found', statusCode: 404 });
  t.notOk(
    (await call(team, 'GET', '/audiences?limit=100')).body.data.some((a: { id: string }) => a.id === theirs),
    'not listed',
  );
  t.equal((await call(neighbour, 'GET', `/audiences/${theirs}`)).status, 200, 'still theirs');
});

t.test('refusals: the body, the name, and the credential, as for segments', async (t) => {
  errorShape(t, await call(team, 'POST', '/audiences', {}), 422, 'missing_required_field');
  errorShape(t, await call(team, 'POST', '/audiences', { name: '   ' }), 400, 'validation_error');
  const filtered = errorShape(
    t,
    await call(team, 'POST', '/audiences', { name: 'F', filter: null }),
    400,
    'validation_error',
  );
  t.match(filtered.message, /unknown field: filter/, 'an audience takes no filter (CreateAudienceOptions is { name })');
  await call(team, 'POST', '/audiences', { name: 'Twice' });
  errorShape(t, await call(team, 'POST', '/audiences', { name: 'Twice' }), 422, 'invalid_parameter');

  const sending = await app.runtime.services.apiKeys.create(team.teamId, { name: 's', permission: 'sending_access' });
  const asSending = { teamId: team.teamId, token: sending.token };
  errorShape(t, await call(asSending, 'POST', '/audiences', { name: 'No' }), 401, 'restricted_api_key');
  t.equal((await call(asSending, 'GET', '/audiences')).status, 200, 'a sending key lists, as for segments');
  errorShape(t, await request(app.url, '/audiences'), 401, 'missing_api_key');
});

t.test('the OpenAPI document marks the aliases deprecated', async (t) => {
  const doc = (await request(app.url, '/openapi.json')).body as {
    paths: Record<string, Record<string, { deprecated?: boolean }>>;
  };
  t.equal(doc.paths['/audiences']?.post?.deprecated, true);
  t.equal(doc.paths['/audiences']?.get?.deprecated, true);
  t.equal(doc.paths['/audiences/{audience_id}']?.get?.deprecated, true);
  t.equal(doc.paths['/audiences/{audience_id}']?.delete?.deprecated, true);
  t.equal(doc.paths['/segments']?.post?.deprecated, undefined, 'the segment routes are not');
});
