import { Resend } from 'resend';
import t from 'tap';
import { errorShape, request } from '../helpers/http.js';
import { startTestApp } from '../helpers/test-app.js';

const app = await startTestApp();
t.teardown(() => app.close());

const create = (token: string, body: unknown) => request(app.url, '/templates', { method: 'POST', token, body });
const welcome = {
  name: 'Welcome',
  html: '<p>Hi {{ name }}</p>',
  subject: 'Hello {{name}}',
  variables: [{ key: 'name', type: 'string', fallback_value: 'there' }],
};

t.test('create, retrieve by id or alias (any case), with the current version content', async (t) => {
  const team = await app.createTeam();
  const res = await create(team.token, {
    ...welcome,
    alias: 'welcome-mail',
    from: 'Acme <hello@acme.test>',
    reply_to: 'support@acme.test',
    text: 'Hi {{name}}',
  });
  t.equal(res.status, 201);
  t.same(Object.keys(res.body).sort(), ['id', 'object']);
  const byId = (await request(app.url, `/templates/${res.body.id}`, { token: team.token })).body;
  t.match(byId, {
    object: 'template',
    id: res.body.id,
    name: 'Welcome',
    alias: 'welcome-mail',
    status: 'draft',
    has_unpublished_versions: false,
    from: 'Acme <hello@acme.test>',
    subject: 'Hello {{name}}',
    reply_to: ['support@acme.test'],
    html: '<p>Hi {{ name }}</p>',
    text: 'Hi {{name}}',
    variables: [{ key: 'name', type: 'string', fallback_value: 'there' }],
    published_at: null,
    brand_overrides: null,
  });
  t.type(byId.current_version_id, 'string');
  t.equal(
    (await request(app.url, '/templates/WELCOME-Mail', { token: team.token })).body.id,
    res.body.id,
    'alias matched case-insensitively',
  );
});

t.test('rule 1: exactly one of html and starter', async (t) => {
  const team = await app.createTeam();
  errorShape(t, await create(team.token, { name: 'x' }), 422, 'missing_required_field');
  errorShape(
    t,
    await create(team.token, { name: 'x', html: '<p>x</p>', starter: 'welcome' }),
    422,
    'invalid_parameter',
  );
  errorShape(t, await create(team.token, { html: '<p>x</p>' }), 422, 'missing_required_field');
});

t.test('rule 2: starters from GET /starters; the caller’s values win', async (t) => {
  const team = await app.createTeam();
  const starters = (await request(app.url, '/starters', { token: team.token })).body;
  t.equal(starters.object, 'list');
  t.ok(starters.data.length >= 3);
  t.ok(
    starters.data.every((s: { slug: string; html: string }) => s.slug && s.html.includes('{{brand.')),
    'brand-aware starters',
  );
  errorShape(t, await create(team.token, { name: 'x', starter: 'no-such-starter' }), 400, 'validation_error');
  const plain = await create(team.token, { name: 'From starter', starter: 'password-reset' });
  t.equal(plain.status, 201);
  const got = (await request(app.url, `/templates/${plain.body.id}`, { token: team.token })).body;
  t.equal(got.subject, 'Reset your password');
  t.same(
    got.variables.map((v: { key: string }) => v.key),
    ['reset_url', 'expires_in_minutes'],
  );
  const custom = await create(team.token, {
    name: 'Custom',
    starter: 'welcome',
    subject: 'Hey {{name}}',
    alias: 'hey',
    from: 'me@acme.test',
  });
  const customGot = (await request(app.url, `/templates/${custom.body.id}`, { token: team.token })).body;
  t.match(customGot, { subject: 'Hey {{name}}', alias: 'hey', from: 'me@acme.test' });
});

t.test('rule 3: undeclared placeholders and unused variables, one entry per key', async (t) => {
  const team = await app.createTeam();
  const body = errorShape(
    t,
    await create(team.token, {
      name: 'x',
      html: '<p>{{a}} {{b}} {{ b }}</p>',
      text: '{{c}}',
      variables: [
        { key: 'a', type: 'string' },
        { key: 'unused', type: 'number' },
        { key: 'also_unused', type: 'string' },
      ],
    }),
    422,
    'validation_error',
  );
  t.same(body.errors?.map((e) => e.path).sort(), ['also_unused', 'b', 'c', 'unused']);
  errorShape(t, await create(team.token, { name: 'x', html: '{{brand.nope}}' }), 422, 'validation_error');
  t.equal(
    (await create(team.token, { name: 'brand', html: '<img src="{{brand.logo_url}}">' })).status,
    201,
    'brand tokens need no declaration',
  );
});

t.test('variables: 200 with 2000-character fallbacks are stored; a longer fallback is refused', async (t) => {
  const team = await app.createTeam();
  const keys = Array.from({ length: 200 }, (_, i) => `v${i}`);
  const variables = keys.map((key, i) =>
    i % 2
      ? { key, type: 'string', fallback_value: '東'.repeat(2000) }
      : { key, type: 'list', fallback_value: Array.from({ length: 399 }, () => 'ab') },
  );
  const html = `<p>${keys.map((key) => `{{${key}}}`).join(' ')}</p>`;
  const created = await create(team.token, { name: 'big', html, variables });
  t.equal(created.status, 201, 'created (over 1 MB of variables as JSON: MEDIUMTEXT on MariaDB)');
  const read = await request(app.url, `/templates/${created.body.id}`, { token: team.token });
  t.equal(read.body.variables.length, 200);
  t.equal(read.body.variables[199].fallback_value, '東'.repeat(2000), 'read back whole');
  for (const [what, fallback] of [
    ['a string', '東'.repeat(2001)],
    ['a list as JSON', Array.from({ length: 400 }, () => 'ab')],
  ] as const) {
    const body = errorShape(
      t,
      await create(team.token, {
        name: 'x',
        html: '<p>{{a}}</p>',
        variables: [{ key: 'a', type: Array.isArray(fallback) ? 'list' : 'string', fallback_value: fallback }],
      }),
      400,
      'validation_error',
    );
    t.match(body.errors?.[0]?.message, /at most 2000 characters/, `${what} over 2000 characters`);
  }
});

t.test('rule 4: aliases', async (t) => {
  const team = await app.createTeam();
  t.equal((await create(team.token, { ...welcome, alias: 'taken' })).status, 201);
  errorShape(t, await create(team.token, { ...welcome, alias: 'taken' }), 422, 'validation_error');
  for (const alias of ['Upper', '-dash-first', 'a'.repeat(64), '0199a0a0-0000-7000-8000-000000000000', 'has space']) {
    errorShape(t, await create(team.token, { ...welcome, alias }), 400, 'validation_error');
  }
  const owner = (await request(app.url, '/templates/taken', { token: team.token })).body.id;
  t.same((await request(app.url, `/templates/${owner}`, { method: 'DELETE', token: team.token })).body, {
    object: 'template',
    id: owner,
    deleted: true,
  });
  t.equal((await create(team.token, { ...welcome, alias: 'taken' })).status, 201, 'deleting frees the alias');
  const other = await app.createTeam();
  t.equal((await create(other.token, { ...welcome, alias: 'taken' })).status, 201, 'aliases are per team');
});

t.test('rule 5: brand_overrides', async (t) => {
  const team = await app.createTeam();
  const ok = await create(team.token, { ...welcome, brand_overrides: { primary_color: '#ff0000', font: null } });
  t.equal(ok.status, 201);
  t.same((await request(app.url, `/templates/${ok.body.id}`, { token: team.token })).body.brand_overrides, {
    primary_color: '#ff0000',
    font: null,
  });
  errorShape(
    t,
    await create(team.token, { ...welcome, brand_overrides: { colour: '#ff0000' } }),
    400,
    'validation_error',
  );
  errorShape(
    t,
    await create(team.token, { ...welcome, brand_overrides: { font: 'comic-sans' } }),
    400,
    'validation_error',
  );
  errorShape(
    t,
    await create(team.token, { ...welcome, brand_overrides: { button_style: 'round' } }),
    400,
    'validation_error',
  );
  const color = errorShape(
    t,
    await create(team.token, { ...welcome, brand_overrides: { accent_color: 'blue' } }),
    422,
    'invalid_parameter',
  );
  t.equal(color.errors?.[0]?.path, 'brand_overrides.accent_color');
  errorShape(
    t,
    await create(team.token, { ...welcome, brand_overrides: { logo_url: 'ftp://x' } }),
    422,
    'invalid_parameter',
  );
  t.equal((await create(team.token, { ...welcome, brand_overrides: null })).status, 201, 'null pins nothing');
});

t.test('rule 6: reads with either key, writes with full_access only', async (t) => {
  const team = await app.createTeam();
  const id = (await create(team.token, welcome)).body.id;
  const sending = await app.runtime.services.apiKeys.create(team.teamId, { name: 's', permission: 'sending_access' });
  t.equal((await request(app.url, `/templates/${id}`, { token: sending.token })).status, 200);
  t.equal((await request(app.url, '/templates', { token: sending.token })).status, 200);
  errorShape(t, await create(sending.token, welcome), 401, 'restricted_api_key');
  errorShape(
    t,
    await request(app.url, `/templates/${id}/publish`, { method: 'POST', token: sending.token }),
    401,
    'restricted_api_key',
  );
  errorShape(
    t,
    await request(app.url, `/templates/${id}`, { method: 'DELETE', token: sending.token }),
    401,
    'restricted_api_key',
  );
});

t.test('versions: publish, update opens a draft while the published one keeps sending, publish again', async (t) => {
  const team = await app.createTeam();
  const { templates } = app.runtime.services;
  const id = (await create(team.token, welcome)).body.id;
  t.match(
    await templates.publishedVersion(team.teamId, id).catch((err: unknown) => err),
    { statusCode: 422, errorName: 'invalid_parameter' },
    'a draft-only template cannot send',
  );
  t.same((await request(app.url, `/templates/${id}/publish`, { method: 'POST', token: team.token })).body, {
    object: 'template',
    id,
  });
  const v1 = await templates.publishedVersion(team.teamId, id);
  t.equal(v1.version.version, 1);
  const published = (await request(app.url, `/templates/${id}`, { token: team.token })).body;
  t.match(published, { status: 'published', has_unpublished_versions: false, published_at: String });

  await request(app.url, `/templates/${id}`, {
    method: 'PATCH',
    token: team.token,
    body: { html: '<p>Hello again {{name}}</p>' },
  });
  const draft = (await request(app.url, `/templates/${id}`, { token: team.token })).body;
  t.match(draft, { status: 'published', has_unpublished_versions: true, html: '<p>Hello again {{name}}</p>' });
  t.not(draft.current_version_id, published.current_version_id);
  t.equal(
    (await templates.publishedVersion(team.teamId, id)).version.html,
    '<p>Hi {{ name }}</p>',
    'sends keep using the published version',
  );
  await request(app.url, `/templates/${id}`, {
    method: 'PATCH',
    token: team.token,
    body: { subject: 'Second edit {{name}}' },
  });
  t.equal(
    (await request(app.url, `/templates/${id}`, { token: team.token })).body.current_version_id,
    draft.current_version_id,
    'the open draft is edited in place',
  );

  await request(app.url, `/templates/${id}/publish`, { method: 'POST', token: team.token });
  const v2 = await templates.publishedVersion(team.teamId, id);
  t.match(v2.version, { version: 2, html: '<p>Hello again {{name}}</p>', subject: 'Second edit {{name}}' });
  t.equal((await request(app.url, `/templates/${id}`, { token: team.token })).body.has_unpublished_versions, false);
  errorShape(
    t,
    await request(app.url, `/templates/${id}`, {
      method: 'PATCH',
      token: team.token,
      body: { html: '<p>{{undeclared}}</p>' },
    }),
    422,
    'validation_error',
  );
  errorShape(
    t,
    await request(app.url, `/templates/${id}`, { method: 'PATCH', token: team.token, body: { html: '' } }),
    400,
    'validation_error',
  );
});

t.test('duplicate copies the current content into a new draft without the alias', async (t) => {
  const team = await app.createTeam();
  const id = (await create(team.token, { ...welcome, alias: 'orig' })).body.id;
  const copy = await request(app.url, `/templates/${id}/duplicate`, { method: 'POST', token: team.token });
  t.equal(copy.status, 200);
  const got = (await request(app.url, `/templates/${copy.body.id}`, { token: team.token })).body;
  t.match(got, { name: 'Welcome (copy)', alias: null, status: 'draft', html: welcome.html });
});

t.test('list: most recently changed first, status and search filters, cursors, no content', async (t) => {
  const team = await app.createTeam();
  const ids: string[] = [];
  for (const name of ['Alpha', 'Beta_1', 'Gamma 100%'])
    ids.push((await create(team.token, { name, html: '<p>x</p>' })).body.id);
  await request(app.url, `/templates/${ids[0]}/publish`, { method: 'POST', token: team.token });
  const list = (await request(app.url, '/templates', { token: team.token })).body;
  t.same(
    list.data.map((x: { name: string }) => x.name),
    ['Alpha', 'Gamma 100%', 'Beta_1'],
    'the just-published one first',
  );
  t.notOk('html' in list.data[0], 'list items carry no content');
  t.same(
    (await request(app.url, '/templates?status=published', { token: team.token })).body.data.map(
      (x: { id: string }) => x.id,
    ),
    [ids[0]],
  );
  t.same(
    (await request(app.url, '/templates?search=_', { token: team.token })).body.data.map(
      (x: { name: string }) => x.name,
    ),
    ['Beta_1'],
  );
  t.same(
    (await request(app.url, '/templates?search=%25', { token: team.token })).body.data.map(
      (x: { name: string }) => x.name,
    ),
    ['Gamma 100%'],
  );
  const page = await request(app.url, `/templates?limit=1&after=${ids[0]}`, { token: team.token });
  t.same(
    page.body.data.map((x: { id: string }) => x.id),
    [ids[2]],
  );
  t.equal(page.body.has_more, true);
  const back = await request(app.url, `/templates?limit=1&before=${ids[1]}`, { token: team.token });
  t.same(
    back.body.data.map((x: { id: string }) => x.id),
    [ids[2]],
  );
  errorShape(t, await request(app.url, '/templates?status=archived', { token: team.token }), 422, 'invalid_parameter');
  errorShape(
    t,
    await request(app.url, `/templates?after=${(await app.createTeam()).keyId}`, { token: team.token }),
    422,
    'invalid_parameter',
  );
});

t.test('the resend SDK: templates.create/get/list/update/publish/duplicate/remove', async (t) => {
  const team = await app.createTeam();
  const resend = new Resend(team.token, { baseUrl: `${app.url}/api/v1` } as never);
  const created = await resend.templates.create({
    name: 'SDK',
    html: '<p>{{greeting}}</p>',
    subject: 'S',
    alias: 'sdk-template',
    variables: [{ key: 'greeting', type: 'string', fallbackValue: 'Hello' }],
  });
  t.equal(created.error, null);
  const id = created.data!.id;
  const got = await resend.templates.get('sdk-template');
  t.match(got.data, {
    id,
    name: 'SDK',
    status: 'draft',
    variables: [{ key: 'greeting', type: 'string', fallback_value: 'Hello' }],
  });
  t.ok((await resend.templates.list()).data!.data.some((x) => x.id === id));
  t.same((await resend.templates.update(id, { name: 'SDK 2' })).data, { id, object: 'template' });
  t.same((await resend.templates.publish(id)).data, { id, object: 'template' });
  const dup = await resend.templates.duplicate(id).publish();
  t.equal(dup.error, null, 'duplicate().publish() chains');
  t.match((await resend.templates.remove(id)).data, { object: 'template', id, deleted: true });
  t.equal((await resend.templates.get(id)).error?.name, 'not_found');
  const chained = await resend.templates.create({ name: 'Chained', html: '<p>x</p>' }).publish();
  t.equal(chained.error, null);
});
