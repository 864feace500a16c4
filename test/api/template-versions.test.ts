import t from 'tap';
import type { Caller } from '../../core/platform/auth/caller.js';
import { newId } from '../../lib/ids.js';
import { errorShape, request } from '../helpers/http.js';
import { startTestApp } from '../helpers/test-app.js';

/**
 * GET /templates/:id/versions and GET /templates/:id/versions/:version_id: the versions of a
 * template (newest first, cursor-paged, without content) and one version with its content, with
 * the published/current flags through create -> publish -> edit (a new draft version) -> publish.
 */
const app = await startTestApp();
t.teardown(() => app.close());

type Version = { id: string; version: number; published: boolean; current: boolean; [key: string]: unknown };
const get = (token: string, path: string) => request(app.url, path, { token });
const patch = (token: string, id: string, body: unknown) =>
  request(app.url, `/templates/${id}`, { method: 'PATCH', token, body });
const publish = (token: string, id: string) => request(app.url, `/templates/${id}/publish`, { method: 'POST', token });
const flags = (list: Version[]) =>
  list.map((v) => ({ version: v.version, published: v.published, current: v.current }));
const ITEM_KEYS = [
  'created_at',
  'current',
  'from',
  'id',
  'object',
  'published',
  'reply_to',
  'subject',
  'template_id',
  'updated_at',
  'version',
];

async function newTemplate(token: string, alias?: string) {
  const res = await request(app.url, '/templates', {
    method: 'POST',
    token,
    body: {
      name: 'Receipt',
      alias,
      subject: 'Your receipt, {{name}}',
      from: 'Acme <billing@acme.test>',
      reply_to: 'help@acme.test',
      html: '<p>Thanks {{name}}</p>',
      text: 'Thanks {{name}}',
      variables: [{ key: 'name', type: 'string', fallback_value: 'friend' }],
    },
  });
  t.equal(res.status, 201);
  return res.body.id as string;
}

t.test('flags through create, publish, edit (a new draft version) and publish again', async (t) => {
  const { token } = await app.createTeam();
  const id = await newTemplate(token, 'receipt');
  const versions = async () => (await get(token, `/templates/${id}/versions`)).body.data as Version[];

  const first = await get(token, `/templates/${id}/versions`);
  t.equal(first.status, 200);
  t.same(Object.keys(first.body).sort(), ['data', 'has_more', 'object']);
  t.equal(first.body.object, 'list');
  t.equal(first.body.has_more, false);
  t.same(flags(first.body.data), [{ version: 1, published: false, current: true }], 'a draft: current, not published');
  const [v1] = first.body.data as Version[];
  t.same(Object.keys(v1!).sort(), ITEM_KEYS, 'a list item carries no content');
  t.match(v1, {
    object: 'template_version',
    template_id: id,
    subject: 'Your receipt, {{name}}',
    from: 'Acme <billing@acme.test>',
    reply_to: ['help@acme.test'],
  });
  t.ok(!Number.isNaN(Date.parse(v1!.created_at as string)), 'created_at is a date');
  const template = (await get(token, `/templates/${id}`)).body;
  t.equal(v1!.id, template.current_version_id, 'the current version is the template’s current_version_id');

  t.equal((await publish(token, id)).status, 200);
  t.same(flags(await versions()), [{ version: 1, published: true, current: true }], 'published: both flags');

  t.equal((await patch(token, id, { html: '<p>Thank you, {{name}}</p>' })).status, 200);
  t.same(
    flags(await versions()),
    [
      { version: 2, published: false, current: true },
      { version: 1, published: true, current: false },
    ],
    'an edit of the published version opens version 2, newest first',
  );
  t.equal((await patch(token, id, { subject: 'Receipt for {{name}}' })).status, 200);
  t.equal((await versions()).length, 2, 'a second edit changes the draft in place');

  // The published version keeps its content; the draft has the edits (what the dashboard diffs).
  const [v2] = await versions();
  const published = await get(token, `/templates/${id}/versions/${v1!.id}`);
  t.equal(published.status, 200);
  t.same(Object.keys(published.body).sort(), [...ITEM_KEYS, 'html', 'text', 'variables'].sort());
  t.match(published.body, {
    object: 'template_version',
    id: v1!.id,
    version: 1,
    published: true,
    current: false,
    subject: 'Your receipt, {{name}}',
    html: '<p>Thanks {{name}}</p>',
    text: 'Thanks {{name}}',
    variables: [{ key: 'name', type: 'string', fallback_value: 'friend' }],
  });
  const draft = (await get(token, `/templates/receipt/versions/${v2!.id}`)).body;
  t.match(draft, {
    version: 2,
    published: false,
    current: true,
    subject: 'Receipt for {{name}}',
    html: '<p>Thank you, {{name}}</p>',
  });
  t.same(
    (await get(token, `/templates/RECEIPT/versions`)).body.data.map((v: Version) => v.id),
    [v2!.id, v1!.id],
    'the alias (any case) names the template, as in GET /templates/:id',
  );

  t.equal((await publish(token, id)).status, 200);
  t.same(
    flags(await versions()),
    [
      { version: 2, published: true, current: true },
      { version: 1, published: false, current: false },
    ],
    'publishing moves the published flag to version 2',
  );
});

t.test('cursor pages: limit, after, before, has_more', async (t) => {
  const { token } = await app.createTeam();
  const id = await newTemplate(token);
  // Five versions: each publish then edit opens the next one.
  for (let n = 2; n <= 5; n++) {
    await publish(token, id);
    await patch(token, id, { html: `<p>Version ${n}, {{name}}</p>` });
  }
  const page = async (query: string) => (await get(token, `/templates/${id}/versions?${query}`)).body;
  const all = await page('');
  t.same(
    all.data.map((v: Version) => v.version),
    [5, 4, 3, 2, 1],
  );
  const one = await page('limit=2');
  t.same(
    one.data.map((v: Version) => v.version),
    [5, 4],
  );
  t.equal(one.has_more, true);
  const two = await page(`limit=2&after=${one.data[1].id}`);
  t.same(
    two.data.map((v: Version) => v.version),
    [3, 2],
  );
  t.equal(two.has_more, true);
  const three = await page(`limit=2&after=${two.data[1].id}`);
  t.same(
    three.data.map((v: Version) => v.version),
    [1],
  );
  t.equal(three.has_more, false);
  const back = await page(`limit=2&before=${three.data[0].id}`);
  t.same(
    back.data.map((v: Version) => v.version),
    [3, 2],
    'before: the previous page, still newest first',
  );
  t.equal(back.has_more, true);

  const bad = async (query: string, path: string) => {
    const body = errorShape(t, await get(token, `/templates/${id}/versions?${query}`), 422, 'invalid_parameter');
    t.equal(body.errors?.[0]?.path, path, query);
  };
  await bad('limit=0', 'limit');
  await bad('limit=101', 'limit');
  await bad('after=nope', 'after');
  await bad(`after=${one.data[0].id}&before=${one.data[1].id}`, 'before');
  await bad(`after=${newId()}`, 'after');
  // A version of another template is not a cursor of this list.
  const other = await newTemplate(token);
  const otherVersion = (await get(token, `/templates/${other}/versions`)).body.data[0].id;
  await bad(`before=${otherVersion}`, 'before');
});

t.test('404s: unknown template, unknown version, a version of another template', async (t) => {
  const { token } = await app.createTeam();
  const id = await newTemplate(token);
  const other = await newTemplate(token);
  const otherVersion = (await get(token, `/templates/${other}/versions`)).body.data[0].id as string;
  const notFound = async (path: string, message: RegExp) => {
    const body = errorShape(t, await get(token, path), 404, 'not_found');
    t.match(body.message, message, path);
    t.equal(body.errors, undefined);
  };
  await notFound(`/templates/${newId()}/versions`, /Template not found/);
  await notFound(`/templates/no-such-alias/versions`, /Template not found/);
  await notFound(`/templates/${id}/versions/${newId()}`, /Template version not found/);
  await notFound(`/templates/${id}/versions/${otherVersion}`, /Template version not found/);
  await notFound(`/templates/${newId()}/versions/${otherVersion}`, /Template not found/);
  const deleted = await newTemplate(token);
  await request(app.url, `/templates/${deleted}`, { method: 'DELETE', token });
  await notFound(`/templates/${deleted}/versions`, /Template not found/);
  // A version id that is not a UUID is a malformed parameter, as other sub-resource ids.
  errorShape(t, await get(token, `/templates/${id}/versions/v1`), 422, 'invalid_parameter');
});

t.test('credentials: a sending_access key, the templates:read scope', async (t) => {
  const { token } = await app.createTeam();
  const id = await newTemplate(token);
  const sender = await request(app.url, '/api-keys', {
    method: 'POST',
    token,
    body: { name: 'Sender', permission: 'sending_access' },
  });
  const list = await get(sender.body.token, `/templates/${id}/versions`);
  t.equal(list.status, 200, 'a sending_access key lists versions, as it reads the template');
  t.equal((await get(sender.body.token, `/templates/${id}/versions/${list.body.data[0].id}`)).status, 200);

  // A credential with scopes (an OAuth token's) needs templates:read; see test/api/scopes.test.ts.
  const { apiKeys } = app.runtime.services;
  const authenticate = apiKeys.authenticate.bind(apiKeys);
  let scopes: string[] = [];
  apiKeys.authenticate = async (bearer: string): Promise<Caller> => ({ ...(await authenticate(bearer)), scopes });
  t.teardown(() => void (apiKeys.authenticate = authenticate));
  scopes = ['templates:read'];
  t.equal((await get(token, `/templates/${id}/versions`)).status, 200, 'templates:read lists');
  t.equal((await get(token, `/templates/${id}/versions/${list.body.data[0].id}`)).status, 200, 'and reads one');
  scopes = ['emails:read', 'team:read'];
  const refused = errorShape(t, await get(token, `/templates/${id}/versions`), 403, 'invalid_permission');
  t.match(refused.message, /templates:read/, 'the refusal names the missing scope');
  errorShape(t, await get(token, `/templates/${id}/versions/${list.body.data[0].id}`), 403, 'invalid_permission');
});
