import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Resend } from 'resend';
import t from 'tap';
import { jobs } from '../../../scheduler/jobs/index.js';
import { errorShape, request } from '../../helpers/http.js';
import { fixture, generatedCsv, incomingFiles, runImports, uploadImport } from '../../helpers/contact-imports.js';
import { startTestApp } from '../../helpers/test-app.js';

/**
 * POST /contacts/imports end to end: a real multipart upload, the import run the way the
 * scheduler's worker runs it, and what it left behind (contacts, values, consent records,
 * topic choices, memberships, kept failures, counts), on both databases.
 */
const app = await startTestApp();
t.teardown(() => app.close());

type Team = { teamId: string; token: string };
const call = (team: Team, method: string, path: string, body?: unknown) =>
  request(app.url, path, { method, token: team.token, body });
const knex = app.runtime.db.knex;

/** A team with the properties and the topic and segment the messy file is imported with. */
async function audienceTeam(plan = 'unlimited') {
  const team = await app.createTeam('Imports', plan);
  await call(team, 'POST', '/contact-properties', { key: 'plan', type: 'string' });
  await call(team, 'POST', '/contact-properties', { key: 'seats', type: 'number' });
  const topic = (await call(team, 'POST', '/topics', { name: 'News', default_subscription: 'opt_out' })).body.id;
  const segment = (await call(team, 'POST', '/segments', { name: 'Imported', filter: null })).body.id;
  return { ...team, topic, segment };
}

const contact = async (team: Team, email: string) => (await call(team, 'GET', `/contacts/${email}`)).body;
const consentOf = async (team: Team, email: string) =>
  (await call(team, 'GET', `/contacts/${email}/consent`)).body.data.map((r: any) => [r.kind, r.value, r.source]).sort();
const contactEvents = async (team: Team) =>
  (await app.runtime.services.eventLog.list(team.teamId)).filter((e) => e.type.startsWith('contact.')).length;

const MESSY_FAILURES = [
  { row: 5, email: 'not-an-email', reason: 'not a valid email address' },
  { row: 6, email: null, reason: 'no email address' },
  { row: 7, email: 'eve@example.com', reason: '"seats" is a number property: "many" is not a number' },
  { row: 10, email: 'frank@example.com', reason: 'unsubscribed must be true or false, not "maybe"' },
  { row: 13, email: 'heidi@example.com', reason: '"seats" is a number property: "1,5" is not a number' },
];

t.test('a messy CSV (BOM, CRLF, quotes, commas, a line break in a field, duplicates, bad rows)', async (t) => {
  const team = await audienceTeam();
  await call(team, 'POST', '/contacts', {
    email: 'existing@example.com',
    first_name: 'Old',
    properties: { plan: 'free' },
  });
  const eventsBefore = await contactEvents(team);

  const created = await uploadImport(app, team.token, fixture('messy.csv'), {
    topics: JSON.stringify([{ id: team.topic, subscription: 'opt_in' }]),
    segments: JSON.stringify([{ id: team.segment }]),
  });
  t.equal(created.status, 201);
  t.same(Object.keys(created.body).sort(), ['id', 'object']);
  t.equal(created.body.object, 'contact_import');
  const queued = await call(team, 'GET', `/contacts/imports/${created.body.id}`);
  t.match(queued.body, {
    object: 'contact_import',
    id: created.body.id,
    status: 'queued',
    completed_at: null,
    counts: { total: 0, created: 0, updated: 0, skipped: 0, failed: 0 },
  });
  t.same(incomingFiles(app.runtime), [], 'the upload was moved out of the incoming directory');

  await runImports(app.runtime);
  const done = (await call(team, 'GET', `/contacts/imports/${created.body.id}`)).body;
  t.equal(done.status, 'completed');
  t.type(done.completed_at, 'string');
  t.equal(done.failure_reason, null);
  t.same(done.counts, { total: 11, created: 4, updated: 0, skipped: 2, failed: 5 }, 'blank line not counted');

  const failures = await call(team, 'GET', `/contacts/imports/${created.body.id}/failures`);
  t.equal(failures.status, 200);
  t.same(
    failures.body.data.map(({ row, email, reason }: any) => ({ row, email, reason })),
    MESSY_FAILURES,
    'rows numbered as a spreadsheet shows them (the header is row 1, a quoted line break stays in its row)',
  );
  t.equal(failures.body.has_more, false);

  t.match(await contact(team, 'ada@example.com'), {
    first_name: 'Ada',
    last_name: 'Lovelace',
    unsubscribed: false,
    properties: { plan: 'pro', seats: 3 },
  });
  t.match(await contact(team, 'bob@example.com'), { first_name: 'Robert "Bob"', last_name: 'Smith, Jr.' });
  t.match(await contact(team, 'carol@example.com'), { first_name: 'Carol', last_name: 'Jones' });
  t.match(await contact(team, 'grace@example.com'), {
    email: 'grace@example.com',
    unsubscribed: true,
    properties: { plan: 'pro', seats: 12 },
  });
  t.match(await contact(team, 'existing@example.com'), { first_name: 'Old', properties: { plan: 'free' } }, 'skipped');
  t.equal((await call(team, 'GET', '/contacts/eve@example.com')).status, 404, 'a failed row creates nothing');

  t.same(await consentOf(team, 'grace@example.com'), [
    ['topic', 'opt_in', 'import'],
    ['unsubscribed', 'unsubscribed', 'import'],
  ]);
  t.same(await consentOf(team, 'ada@example.com'), [['topic', 'opt_in', 'import']]);
  t.same(await consentOf(team, 'existing@example.com'), [], 'a skipped contact gets no consent record');
  const topics = (await call(team, 'GET', '/contacts/bob@example.com/topics')).body.data;
  t.same(
    topics.map((x: any) => x.subscription),
    ['opt_in'],
  );
  const members = (await call(team, 'GET', `/segments/${team.segment}/contacts`)).body.data;
  t.same(members.map((c: any) => c.email).sort(), [
    'ada@example.com',
    'bob@example.com',
    'carol@example.com',
    'grace@example.com',
  ]);
  t.equal(await contactEvents(team), eventsBefore, 'no contact.* event for imported rows');
});

t.test('on_conflict upsert: existing addresses and repeated rows update; never a resubscription', async (t) => {
  const team = await audienceTeam();
  await call(team, 'POST', '/contacts', { email: 'existing@example.com', first_name: 'Old', unsubscribed: true });
  const created = await uploadImport(app, team.token, fixture('messy.csv'), {
    on_conflict: 'upsert',
    topics: JSON.stringify([{ id: team.topic, subscription: 'opt_in' }]),
  });
  t.equal(created.status, 201);
  await runImports(app.runtime);
  const done = (await call(team, 'GET', `/contacts/imports/${created.body.id}`)).body;
  t.same(done.counts, { total: 11, created: 4, updated: 2, skipped: 0, failed: 5 });
  t.match(await contact(team, 'ada@example.com'), {
    first_name: 'Ada Augusta',
    last_name: 'Lovelace',
    properties: { plan: 'pro', seats: 3 },
  });
  t.match(await contact(team, 'existing@example.com'), {
    first_name: 'Existing',
    last_name: 'Updated',
    unsubscribed: true,
    properties: { plan: 'enterprise', seats: 5 },
  });
  t.same(await consentOf(team, 'existing@example.com'), [
    ['topic', 'opt_in', 'import'],
    ['unsubscribed', 'unsubscribed', 'api'],
  ]);
  t.equal((await knex('contacts').where({ team_id: team.teamId })).length, 5, 'no duplicate contact');
});

t.test('a semicolon-separated file with a column map, boolean read into a string property', async (t) => {
  const team = await app.createTeam('Semicolons', 'unlimited');
  await call(team, 'POST', '/contact-properties', { key: 'plan', type: 'string' });
  await call(team, 'POST', '/contact-properties', { key: 'vip', type: 'string' });
  const created = await uploadImport(app, team.token, fixture('semicolon.csv'), {
    column_map: JSON.stringify({
      email: 'e-mail',
      first_name: 'Vorname',
      last_name: 'Nachname',
      properties: { plan: 'Tarif', vip: { column: 'VIP', type: 'boolean' } },
    }),
  });
  t.equal(created.status, 201, JSON.stringify(created.body));
  await runImports(app.runtime);
  const done = (await call(team, 'GET', `/contacts/imports/${created.body.id}`)).body;
  t.same(done.counts, { total: 4, created: 3, updated: 0, skipped: 0, failed: 1 });
  t.match(await contact(team, 'hans@example.de'), {
    last_name: 'Müller; Sr.',
    properties: { plan: 'pro', vip: 'true' },
  });
  t.match(await contact(team, 'jana@example.de'), { properties: { vip: 'true' } });
  t.match(await contact(team, 'karl@example.de'), { last_name: 'Weiß', properties: { vip: 'false' } });
  const failures = (await call(team, 'GET', `/contacts/imports/${created.body.id}/failures`)).body.data;
  t.match(failures, [{ row: 5, email: 'lena@example.de', reason: '"vip" must be true or false, not "vielleicht"' }]);
});

t.test('cells that are not UTF-8 fail their row; the rest is imported', async (t) => {
  const team = await app.createTeam('Bytes', 'unlimited');
  const created = await uploadImport(app, team.token, fixture('bad-utf8.csv'));
  await runImports(app.runtime);
  const done = (await call(team, 'GET', `/contacts/imports/${created.body.id}`)).body;
  t.same(done.counts, { total: 4, created: 2, updated: 0, skipped: 0, failed: 2 });
  t.match(await contact(team, 'zoe@example.com'), { first_name: 'Zoë', last_name: 'Ångström' });
  const failures = (await call(team, 'GET', `/contacts/imports/${created.body.id}/failures`)).body.data;
  t.match(failures, [
    { row: 3, email: 'latin@example.com', reason: 'the "first_name" cell is not valid UTF-8' },
    { row: 4, email: null, reason: 'the "email" cell is not valid UTF-8' },
  ]);
});

t.test("rows past the plan's contact limit fail; the first 1,000 failures are kept", async (t) => {
  const team = await app.createTeam('Free plan', 'free');
  await call(team, 'POST', '/contact-properties', { key: 'seats', type: 'number' });
  await call(team, 'POST', '/contacts', { email: 'already@example.com' });
  const created = await uploadImport(app, team.token, generatedCsv(1002));
  await runImports(app.runtime);
  const done = (await call(team, 'GET', `/contacts/imports/${created.body.id}`)).body;
  t.same(done.counts, { total: 1002, created: 999, updated: 0, skipped: 0, failed: 3 }, 'limit 1,000 on free');
  const failures = (await call(team, 'GET', `/contacts/imports/${created.body.id}/failures`)).body.data;
  t.same(
    failures.map((f: any) => [f.row, f.email, f.reason]),
    [1001, 1002, 1003].map((row) => [
      row,
      `person${row - 1}@example.com`,
      "the plan's contact limit (1000) is reached",
    ]),
  );
  t.equal((await knex('contacts').where({ team_id: team.teamId })).length, 1000);

  const many = await app.createTeam('Many bad rows', 'unlimited');
  const bad = ['email,first_name', ...Array.from({ length: 1200 }, (_, i) => `bad${i},x`)].join('\n');
  const second = await uploadImport(app, many.token, bad);
  await runImports(app.runtime);
  t.match((await call(many, 'GET', `/contacts/imports/${second.body.id}`)).body.counts, { total: 1200, failed: 1200 });
  const page = await call(many, 'GET', `/contacts/imports/${second.body.id}/failures?limit=100&after=950`);
  t.same(
    page.body.data.map((f: any) => f.row),
    Array.from({ length: 51 }, (_, i) => 951 + i),
    'the last kept failure is the 1,000th (row 1001)',
  );
  t.equal(page.body.has_more, false);
  const before = await call(many, 'GET', `/contacts/imports/${second.body.id}/failures?limit=2&before=10`);
  t.same(
    before.body.data.map((f: any) => f.row),
    [8, 9],
  );
  t.equal(before.body.has_more, true);
});

t.test('a quote never closed: rows before it are imported, the import fails naming the row', async (t) => {
  const team = await app.createTeam('Broken quote', 'unlimited');
  const created = await uploadImport(
    app,
    team.token,
    'email,first_name\na@example.com,A\nb@example.com,"never closed\n',
  );
  await runImports(app.runtime);
  const done = (await call(team, 'GET', `/contacts/imports/${created.body.id}`)).body;
  t.equal(done.status, 'failed');
  t.type(done.completed_at, 'string');
  t.match(done.failure_reason, /row 3: a quoted field is never closed/);
  t.match(done.counts, { total: 1, created: 1 });
});

t.test('list newest first, filtered by status, paginated', async (t) => {
  const team = await app.createTeam('Lists', 'unlimited');
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) ids.push((await uploadImport(app, team.token, generatedCsv(2, `l${i}-`))).body.id);
  const queued = await call(team, 'GET', '/contacts/imports?status=queued');
  t.same(
    queued.body.data.map((i: any) => i.id),
    [...ids].reverse(),
  );
  await runImports(app.runtime);
  const page = await call(team, 'GET', '/contacts/imports?limit=2');
  t.equal(page.status, 200);
  t.same(
    page.body.data.map((i: any) => i.id),
    [ids[2], ids[1]],
  );
  t.equal(page.body.has_more, true);
  t.match(page.body.data[0], { object: 'contact_import', status: 'completed', counts: { created: 2 } });
  const rest = await call(team, 'GET', `/contacts/imports?after=${ids[1]}`);
  t.same(
    rest.body.data.map((i: any) => i.id),
    [ids[0]],
  );
  t.same((await call(team, 'GET', '/contacts/imports?status=queued')).body.data, []);
  errorShape(t, await call(team, 'GET', '/contacts/imports?status=done'), 422, 'invalid_parameter');
  errorShape(t, await call(team, 'GET', `/contacts/imports/${ids[0]}/failures?after=x`), 422, 'invalid_parameter');
  errorShape(t, await call(team, 'GET', '/contacts/imports/0196f0e0-0000-7000-8000-000000000000'), 404, 'not_found');
  errorShape(t, await call(team, 'GET', '/contacts/imports/not-an-id/failures'), 404, 'not_found');
});

t.test('every documented refusal: status, name, body; nothing queued, no upload left behind', async (t) => {
  const team = await audienceTeam();
  const csv = 'email,first_name\na@example.com,A\n';
  const refused = async (
    label: string,
    file: Buffer | string | null,
    fields: Record<string, string>,
    status: number,
    name: string,
    path?: string,
  ) => {
    const res = await uploadImport(app, team.token, file, fields);
    const body = errorShape(t, { ...res, text: JSON.stringify(res.body) }, status, name);
    if (path) t.equal(body.errors?.[0]?.path, path, `${label}: errors[0].path`);
    t.same(incomingFiles(app.runtime), [], `${label}: the upload was removed`);
    return body;
  };
  await refused('no file', null, { on_conflict: 'skip' }, 422, 'missing_required_field', 'file');
  await refused('bad JSON', csv, { column_map: '{"email":' }, 422, 'invalid_parameter', 'column_map');
  await refused('unknown key', csv, { column_map: '{"mail":"email"}' }, 422, 'invalid_parameter', 'column_map');
  await refused('bad on_conflict', csv, { on_conflict: 'merge' }, 422, 'invalid_parameter', 'on_conflict');
  await refused('segments not JSON', csv, { segments: 'abc' }, 422, 'invalid_parameter', 'segments');
  const unknown = '0196f0e0-0000-7000-8000-000000000000';
  await refused(
    'unknown segment',
    csv,
    { segments: JSON.stringify([{ id: unknown }]) },
    422,
    'invalid_parameter',
    'segments[0].id',
  );
  await refused(
    'unknown topic',
    csv,
    { topics: JSON.stringify([{ id: unknown, subscription: 'opt_in' }]) },
    422,
    'invalid_parameter',
    'topics[0].id',
  );
  const absent = await refused(
    'absent column',
    csv,
    { column_map: JSON.stringify({ first_name: 'Given name' }) },
    422,
    'invalid_parameter',
    'column_map.first_name',
  );
  t.match(absent.message, /no column "Given name" \(its columns: "email", "first_name"\)/);
  await refused('no email column', 'mail,name\nx@example.com,X\n', {}, 422, 'invalid_parameter', 'column_map.email');
  await refused(
    'undeclared property',
    csv,
    { column_map: JSON.stringify({ properties: { tier: 'first_name' } }) },
    422,
    'invalid_parameter',
    'column_map.properties.tier',
  );
  await refused(
    'type mismatch',
    csv,
    { column_map: JSON.stringify({ properties: { seats: { column: 'first_name', type: 'string' } } }) },
    422,
    'invalid_parameter',
    'column_map.properties.seats',
  );
  await refused('empty file', '', {}, 422, 'invalid_parameter', 'file');
  await refused('unknown field', csv, { extra: '1' }, 400, 'validation_error');

  const json = await call(team, 'POST', '/contacts/imports', { file: 'a,b' });
  errorShape(t, json, 400, 'validation_error');
  t.match(json.body.message, /multipart\/form-data/);

  const big = Buffer.alloc(50 * 1024 * 1024 + 1, 0x61);
  const tooLarge = await refused('over 50 MB', big, {}, 400, 'validation_error', 'file');
  t.match(tooLarge.message, /larger than 50 MB/);

  const restricted = await app.runtime.services.apiKeys.create(team.teamId, {
    name: 's',
    permission: 'sending_access',
  });
  const denied = await uploadImport(app, restricted.token, csv);
  t.equal(denied.status, 401);
  t.equal(denied.body.name, 'restricted_api_key');

  t.same((await call(team, 'GET', '/contacts/imports')).body.data, [], 'nothing was queued');
});

t.test('the file is deleted seven days after completion; the counts stay', async (t) => {
  const team = await app.createTeam('Retention', 'unlimited');
  const old = (await uploadImport(app, team.token, 'email\nbad\nok@example.com\n')).body.id;
  const recent = (await uploadImport(app, team.token, 'email\nfine@example.com\n')).body.id;
  await runImports(app.runtime);
  const day = 86_400_000;
  await knex('contact_imports')
    .where({ id: old })
    .update({ completed_at: new Date(Date.now() - 7 * day - 60_000) });
  await knex('contact_imports')
    .where({ id: recent })
    .update({ completed_at: new Date(Date.now() - 6 * day) });
  const file = (id: string) => app.runtime.blobs.get('contact-imports', `${id}.csv`);
  t.ok(await file(old), 'the file is there before');
  // An upload a request never finished (the process died under it), two days old.
  const abandoned = join(app.runtime.services.contactImports.uploadDirectory, 'dead.upload.tmp');
  mkdirSync(dirname(abandoned), { recursive: true });
  writeFileSync(abandoned, 'email\n');
  utimesSync(abandoned, new Date(Date.now() - 2 * day), new Date(Date.now() - 2 * day));
  const job = jobs.find((j) => j.name === 'purge-contact-import-files')!;
  t.same(await job.run(app.runtime.services), { import_files: 1, abandoned_uploads: 1 }, 'the scheduler job');
  t.same(incomingFiles(app.runtime), []);
  t.equal(await file(old), null, 'deleted after seven days');
  t.ok(await file(recent), 'kept before seven days');
  const after = (await call(team, 'GET', `/contacts/imports/${old}`)).body;
  t.same(after.counts, { total: 2, created: 1, updated: 0, skipped: 0, failed: 1 }, 'the counts stay');
  t.same((await call(team, 'GET', `/contacts/imports/${old}/failures`)).body.data, [], 'failed rows go with the file');
  t.same(await job.run(app.runtime.services), { import_files: 0, abandoned_uploads: 0 }, 'once');
});

t.test('the resend SDK: contacts.imports.create, get and list, unchanged', async (t) => {
  const team = await audienceTeam();
  const resend = new Resend(team.token, { baseUrl: `${app.url}/api/v1` } as never);
  const csv = 'Address,Name,Seats\nsdk1@example.com,One,1\nsdk2@example.com,Two,2\n';
  const created = await resend.contacts.imports.create({
    file: new Blob([csv], { type: 'text/csv' }),
    columnMap: { email: 'Address', firstName: 'Name', properties: { seats: { column: 'Seats', type: 'number' } } },
    onConflict: 'upsert',
    segments: [{ id: team.segment }],
    topics: [{ id: team.topic, subscription: 'opt_in' }],
  });
  t.equal(created.error, null, JSON.stringify(created.error));
  t.same(created.data, { object: 'contact_import', id: created.data!.id });
  const id = created.data!.id;
  t.match((await resend.contacts.imports.get(id)).data, { object: 'contact_import', id, status: 'queued' });
  await runImports(app.runtime);
  const got = await resend.contacts.imports.get(id);
  t.match(got.data, {
    object: 'contact_import',
    id,
    status: 'completed',
    completed_at: String,
    counts: { total: 2, created: 2, updated: 0, skipped: 0, failed: 0 },
  });
  t.match(await contact(team, 'sdk2@example.com'), { first_name: 'Two', properties: { seats: 2 } });
  const list = await resend.contacts.imports.list({ status: 'completed', limit: 10 });
  t.equal(list.error, null);
  t.match(list.data, { object: 'list', has_more: false, data: [{ id, status: 'completed' }] });
  t.same((await resend.contacts.imports.list({ status: 'queued' })).data!.data, []);
  const bad = await resend.contacts.imports.create({ file: new Blob([csv]), columnMap: { email: 'Mail' } });
  t.match(bad.error, { name: 'invalid_parameter', statusCode: 422 });
});

t.test('malformed multipart bodies are refused with the error body, never a 5xx', async (t) => {
  const team = await app.createTeam('Malformed', 'unlimited');
  const part = (name: string, body: string, filename?: string) =>
    `--b\r\nContent-Disposition: form-data; name="${name}"${filename ? `; filename="${filename}"` : ''}\r\n\r\n${body}\r\n`;
  const bodies: Array<[string, string, string]> = [
    ['no boundary', 'multipart/form-data', 'garbage'],
    ['garbage', 'multipart/form-data; boundary=b', 'not a multipart body at all'],
    ['truncated', 'multipart/form-data; boundary=b', part('file', 'email\na@example.com', 'a.csv').slice(0, 40)],
    ['no closing boundary', 'multipart/form-data; boundary=b', part('file', 'email\na@example.com\n', 'a.csv')],
    ['file as a text field', 'multipart/form-data; boundary=b', `${part('file', 'email\na@example.com\n')}--b--\r\n`],
    [
      'two files',
      'multipart/form-data; boundary=b',
      `${part('file', 'email\n', 'a.csv')}${part('file', 'email\n', 'b.csv')}--b--\r\n`,
    ],
    [
      'field twice',
      'multipart/form-data; boundary=b',
      `${part('on_conflict', 'skip')}${part('on_conflict', 'upsert')}--b--\r\n`,
    ],
    ['urlencoded', 'application/x-www-form-urlencoded', 'file=a'],
  ];
  for (const [label, contentType, rawBody] of bodies) {
    const res = await request(app.url, '/contacts/imports', {
      method: 'POST',
      token: team.token,
      rawBody,
      headers: { 'content-type': contentType },
    });
    t.ok(res.status >= 400 && res.status < 500, `${label}: ${res.status} ${res.text.slice(0, 120)}`);
    t.match(res.body, { statusCode: res.status, name: String, message: String }, `${label}: the error body`);
  }
  t.same(incomingFiles(app.runtime), [], 'nothing left in the upload directory');
  t.equal((await request(app.url, '/health')).status, 200);
});
