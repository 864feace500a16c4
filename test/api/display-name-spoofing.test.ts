import { Resend } from 'resend';
import t from 'tap';
import { errorShape, request } from '../helpers/http.js';
import { startTestApp } from '../helpers/test-app.js';
import { markedVerifiedDomain } from '../helpers/verified-domain.js';

/**
 * From spoofing through a display name (issue 31, item 9): `"ceo@bank.example" <hello@ours>`
 * shows the reader an address the message does not come from. A display name of `from` or
 * `reply_to` that shows an address other than the mailbox's own (after decoding RFC 2047
 * encoded-words and folding the look-alikes of @ and .) is refused with 422 validation_error;
 * a name equal to the address, in any case, and every ordinary name are accepted.
 */
const app = await startTestApp();
t.teardown(() => app.close());
const team = await app.createTeam('Spoof', 'unlimited');
const domain = `ours-${Math.random().toString(36).slice(2, 8)}.test`;
await markedVerifiedDomain(app, team.teamId, domain);
const me = `hello@${domain}`;

const send = (body: Record<string, unknown>) =>
  request(app.url, '/emails', {
    method: 'POST',
    token: team.token,
    body: { to: 'reader@example.net', subject: 'Hi', text: 'hi', ...body },
  });
const b64 = (text: string) => Buffer.from(text).toString('base64');

const SPOOFED_FROM: Array<[string, string, string]> = [
  ['a quoted address', `"ceo@bank.example" <${me}>`, 'ceo@bank.example'],
  ['an unquoted address', `ceo@bank.example <${me}>`, 'ceo@bank.example'],
  ['an address among words', `"Payments (ceo@bank.example)" <${me}>`, 'ceo@bank.example'],
  ['the real address beside another', `"${me} via ceo@bank.example" <${me}>`, 'ceo@bank.example'],
  ['an address in angle brackets inside the name', `"CEO <ceo@bank.example>" <${me}>`, 'ceo@bank.example'],
  ['a base64 encoded-word', `"=?UTF-8?B?${b64('ceo@bank.example')}?=" <${me}>`, 'ceo@bank.example'],
  ['a Q encoded-word', `=?utf-8?q?ceo=40bank=2Eexample?= <${me}>`, 'ceo@bank.example'],
  ['a Latin-1 encoded-word', `=?iso-8859-1?q?CEO_ceo=40bank.example?= <${me}>`, 'ceo@bank.example'],
  ['encoded-words split in two', `=?utf-8?q?ceo=40?= =?utf-8?q?bank.example?= <${me}>`, 'ceo@bank.example'],
  ['a fullwidth @ (U+FF20)', `"ceo\uFF20bank.example" <${me}>`, 'ceo@bank.example'],
  ['a small commercial at (U+FE6B)', `"ceo\uFE6Bbank.example" <${me}>`, 'ceo@bank.example'],
  ['fullwidth letters and an ideographic full stop', `"ｃｅｏ＠ｂａｎｋ\u3002example" <${me}>`, 'ceo@bank.example'],
  ['an encoded fullwidth @', `"=?UTF-8?B?${b64('ceo\uFF20bank.example')}?=" <${me}>`, 'ceo@bank.example'],
  [
    'a zero-width space inside an encoded-word',
    `=?UTF-8?B?${b64('ceo\u200B@bank.example')}?= <${me}>`,
    'ceo@bank.example',
  ],
  ['the same local part at another domain', `"hello@${domain}.evil.example" <${me}>`, `hello@${domain}.evil.example`],
];

t.test('a display name showing another address is refused: 422 validation_error naming from', async (t) => {
  for (const [what, from, shown] of SPOOFED_FROM) {
    const body = errorShape(t, await send({ from }), 422, 'validation_error');
    t.match(body.message, /^from: /, `${what}: the message names the field`);
    t.match(body.message, shown, `${what}: the message names the address shown`);
    t.same(
      body.errors?.map((e) => e.path),
      ['from'],
      `${what}: errors[] has from`,
    );
    t.match(body.errors?.[0]?.message, shown);
  }
  const emails = await app.runtime.db.knex('emails').where({ team_id: team.teamId }).count({ n: '*' });
  t.equal(Number(emails[0]!.n), 0, 'nothing was accepted');
});

t.test('reply_to is held to the same rule; every offending field is listed', async (t) => {
  const one = errorShape(
    t,
    await send({ from: me, reply_to: '"support@bank.example" <help@elsewhere.example>' }),
    422,
    'validation_error',
  );
  t.match(one.message, /^reply_to: .*support@bank\.example/);
  t.match(one.errors, [{ path: 'reply_to', message: /support@bank\.example/ }]);
  t.equal(one.errors?.length, 1);
  const several = errorShape(
    t,
    await send({
      from: `"ceo@bank.example" <${me}>`,
      reply_to: ['ok@elsewhere.example', '"=?utf-8?q?ceo=40bank.example?=" <x@elsewhere.example>'],
    }),
    422,
    'validation_error',
  );
  t.same(
    several.errors?.map((e) => e.path),
    ['from', 'reply_to.1'],
  );
});

t.test('a batch refuses a spoofed item (strict) or reports it by index (permissive)', async (t) => {
  const items = [
    { from: me, to: 'a@example.net', subject: 'ok', text: 'ok' },
    { from: `"ceo@bank.example" <${me}>`, to: 'a@example.net', subject: 'no', text: 'no' },
  ];
  errorShape(
    t,
    await request(app.url, '/emails/batch', { method: 'POST', token: team.token, body: items }),
    422,
    'validation_error',
  );
  const permissive = await request(app.url, '/emails/batch', {
    method: 'POST',
    token: team.token,
    body: items,
    headers: { 'x-batch-validation': 'permissive' },
  });
  t.equal(permissive.status, 200, permissive.text);
  t.equal(permissive.body.data.length, 1);
  t.match(permissive.body.errors, [{ index: 1, message: /from: .*ceo@bank\.example/ }]);
});

t.test('legitimate names are accepted', async (t) => {
  const accepted: Array<[string, Record<string, unknown>]> = [
    ['the address alone', { from: me }],
    ['a plain name', { from: `Acme <${me}>` }],
    ['the name equal to the address', { from: `"${me}" <${me}>` }],
    ['the name equal to the address in another case', { from: `"${me.toUpperCase()}" <${me}>` }],
    ['an unquoted name equal to the address', { from: `${me} <${me}>` }],
    ['a name around the real address', { from: `"Acme (${me})" <${me}>` }],
    ['an @ that is no address', { from: `"Acme @ Home" <${me}>` }],
    ['a handle', { from: `"@acme on Mastodon" <${me}>` }],
    ['an apostrophe', { from: `"Jane O'Brien" <${me}>` }],
    ['a non-ASCII name', { from: `"Zoë Ünal 报告" <${me}>` }],
    ['an encoded name without an address', { from: `=?utf-8?q?Zo=C3=AB?= <${me}>` }],
    ['a reply_to with a plain name', { from: me, reply_to: 'Support <support@elsewhere.example>' }],
    ['a reply_to named as itself', { from: me, reply_to: '"support@elsewhere.example" <support@elsewhere.example>' }],
  ];
  for (const [what, body] of accepted) {
    const res = await send(body);
    t.equal(res.status, 200, `${what}: ${res.text}`);
  }
});

t.test('the resend SDK sees the refusal as a validation_error', async (t) => {
  const resend = new Resend(team.token, { baseUrl: `${app.url}/api/v1` } as never);
  const refused = await resend.emails.send({
    from: `"ceo@bank.example" <${me}>`,
    to: ['reader@example.net'],
    subject: 'Hi',
    text: 'hi',
  });
  t.equal(refused.data, null);
  t.match(refused.error, { name: 'validation_error', message: /^from: .*ceo@bank\.example/ });
  const sent = await resend.emails.send({
    from: `Acme <${me}>`,
    to: ['reader@example.net'],
    subject: 'Hi',
    text: 'hi',
  });
  t.equal(sent.error, null);
  t.ok(sent.data?.id);
});

t.test('a template whose from spoofs is refused when it is sent', async (t) => {
  const created = await request(app.url, '/templates', {
    method: 'POST',
    token: team.token,
    body: { name: 'spoof', html: '<p>hi</p>', subject: 'Hi', from: `"ceo@bank.example" <${me}>` },
  });
  t.equal(created.status, 201, created.text);
  const published = await request(app.url, `/templates/${created.body.id}/publish`, {
    method: 'POST',
    token: team.token,
  });
  t.equal(published.status, 200, published.text);
  const body = errorShape(
    t,
    await request(app.url, '/emails', {
      method: 'POST',
      token: team.token,
      body: { to: 'reader@example.net', template: { id: created.body.id } },
    }),
    422,
    'validation_error',
  );
  t.same(
    body.errors?.map((e) => e.path),
    ['from'],
  );
});
