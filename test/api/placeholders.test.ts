import { simpleParser } from 'mailparser';
import { Resend } from 'resend';
import t, { type Test } from 'tap';
import { errorShape, request } from '../helpers/http.js';
import { startMtaFixture } from '../helpers/mta-fixture.js';

/**
 * One placeholder syntax for templates and broadcasts (issue 32): `{{NAME}}` and `{{{NAME}}}`
 * mean the same in both, delivered through the real MTA to an SMTP sink; a placeholder that does
 * not parse is refused at create and update with 422 validation_error naming the field and the
 * text, and nothing is written.
 */
t.setTimeout(180_000);
const fx = await startMtaFixture({ sinkHosts: ['127.0.0.10'] });
t.teardown(() => fx.close());
fx.dns.add(
  { type: 'MX', name: 'dest.test', exchange: 'mx1.dest.test', priority: 10 },
  { type: 'A', name: 'mx1.dest.test', address: '127.0.0.10' },
);
const [sink] = fx.sinks as [NonNullable<(typeof fx.sinks)[0]>];
const resend = new Resend(fx.token, { baseUrl: `${fx.app.url}/api/v1` } as never);
const call = (method: string, path: string, body?: unknown) =>
  request(fx.app.url, path, { method, token: fx.token, body });

/** The parsed message the sink got for `to`. */
const delivered = async (to: string) => {
  const message = await fx.waitFor(async () => sink.messages.find((m) => m.to.includes(to)), `a message to ${to}`);
  return simpleParser(message.data);
};

t.test('a template written with triple braces is delivered as "Welcome Ada"', async (t) => {
  const created = await resend.templates.create({
    name: 'Triple',
    subject: 'Welcome {{{NAME}}}',
    html: '<p>Welcome {{{NAME}}}</p>',
    text: 'Welcome {{{ NAME }}}, from {{NAME}}',
    variables: [{ key: 'NAME', type: 'string' }],
  });
  t.equal(created.error, null);
  t.equal((await resend.templates.publish(created.data!.id)).error, null);
  const sent = await resend.emails.send({
    from: 'Sender <hello@sender.test>',
    to: 'ada@dest.test',
    template: { id: created.data!.id, variables: { NAME: 'Ada <&>' } },
  } as never);
  t.equal(sent.error, null);
  const mail = await delivered('ada@dest.test');
  t.equal(mail.subject, 'Welcome Ada <&>');
  t.equal(mail.text?.trim(), 'Welcome Ada <&>, from Ada <&>');
  t.match(mail.html, /<p>Welcome Ada &lt;&amp;&gt;<\/p>/, 'triple braces are HTML-escaped in html too (spec)');
  t.notMatch(mail.html, /\{/);
});

t.test('a broadcast written with double braces is delivered as "Welcome Ada"', async (t) => {
  await call('PATCH', '/team', {
    sender_name: 'Sender',
    postal_address: { line1: '1 Main St', city: 'Springfield', postal_code: '12345', country: 'US' },
    brand_kit: {
      logo_url: null,
      primary_color: null,
      accent_color: null,
      font: null,
      button_style: null,
      company_name: 'Acme & Co',
      address: null,
      footer_text: null,
    },
  });
  const contact = await call('POST', '/contacts', { email: 'bea@dest.test', first_name: 'Ada' });
  t.equal(contact.status, 201, contact.text);
  const segment = await call('POST', '/segments', {
    name: 'Bea',
    filter: { all: [{ field: 'email', op: 'eq', value: 'bea@dest.test' }] },
  });
  t.equal(segment.status, 201, segment.text);
  const created = await call('POST', '/broadcasts', {
    segment_id: segment.body.id,
    from: 'News <news@sender.test>',
    subject: 'Welcome {{FIRST_NAME}}',
    html: '<p>Welcome {{ FIRST_NAME }} {{LAST_NAME|friend}} of {{brand.company_name}}</p>',
    text: 'Welcome {{FIRST_NAME}} {{{LAST_NAME|friend}}} of {{brand.company_name}}',
    send: true,
  });
  t.equal(created.status, 201, created.text);
  const result = await fx.app.runtime.services.broadcastFanOut.runDue();
  t.equal(result.emails, 1);
  const mail = await delivered('bea@dest.test');
  t.equal(mail.subject, 'Welcome Ada');
  t.match(mail.text, /^Welcome Ada friend of Acme & Co\n/);
  t.match(mail.html, /<p>Welcome Ada friend of Acme &amp; Co<\/p>/, 'brand tokens take the team kit');
});

const malformed = [
  ['{{NAME}', /opens with \{\{ but closes with \}/],
  ['{{{NAME}}', /opens with \{\{\{ but closes with \}\}/],
  ['{{}}', /is empty/],
  ['{{first-name}}', /names "first-name"/],
  ['{{NAME', /is not closed/],
] as const;

const assertRefusal = (t: Test, response: Awaited<ReturnType<typeof call>>, path: string, raw: string) => {
  const body = errorShape(t, response, 422, 'validation_error');
  t.match(body.message, raw, 'the message quotes the text');
  t.same(body.errors?.length, 1);
  t.equal(body.errors?.[0]?.path, path);
  t.ok(body.errors?.[0]?.message.startsWith(`placeholder "${raw}`), 'the entry quotes the text');
};

t.test('templates: a placeholder that does not parse is 422 on create and update', async (t) => {
  const base = { name: 'Bad', variables: [{ key: 'NAME', type: 'string', fallback_value: 'x' }] };
  const before = (await call('GET', '/templates?limit=100')).body.data.length;
  for (const [raw, reason] of malformed) {
    const html = `<p>Welcome ${raw} {{NAME}}</p>`;
    const res = await call('POST', '/templates', { ...base, html });
    assertRefusal(t, res, 'html', raw);
    t.match(res.body.errors[0].message, reason);
    assertRefusal(
      t,
      await call('POST', '/templates', { ...base, html: '<p>{{NAME}}</p>', subject: `Hi ${raw}` }),
      'subject',
      raw,
    );
    assertRefusal(
      t,
      await call('POST', '/templates', { ...base, html: '<p>{{NAME}}</p>', text: `Hi ${raw}` }),
      'text',
      raw,
    );
  }
  t.equal((await call('GET', '/templates?limit=100')).body.data.length, before, 'nothing created');
  const ok = await call('POST', '/templates', { ...base, html: '<p>{{NAME}}</p>' });
  t.equal(ok.status, 201);
  for (const [raw] of malformed)
    assertRefusal(t, await call('PATCH', `/templates/${ok.body.id}`, { html: `<p>${raw}</p>` }), 'html', raw);
  t.equal((await call('GET', `/templates/${ok.body.id}`)).body.html, '<p>{{NAME}}</p>', 'unchanged');
  const inline = await call('POST', '/templates', { ...base, html: '<p>{{{NAME|there}}}</p>' });
  const body = errorShape(t, inline, 422, 'validation_error');
  t.same(body.errors, [
    {
      path: 'html',
      message: `placeholder "{{{NAME|there}}}" has an inline default: templates take it from the variable's fallback_value`,
    },
  ]);
});

t.test('broadcasts: a placeholder that does not parse is 422 on create and update', async (t) => {
  const base = { from: 'News <news@sender.test>', subject: 'Hello' };
  for (const [raw] of malformed) {
    assertRefusal(t, await call('POST', '/broadcasts', { ...base, html: `<p>Welcome ${raw}</p>` }), 'html', raw);
    assertRefusal(t, await call('POST', '/broadcasts', { ...base, subject: `Welcome ${raw}` }), 'subject', raw);
    assertRefusal(t, await call('POST', '/broadcasts', { ...base, text: `Welcome ${raw}` }), 'text', raw);
  }
  const draft = await call('POST', '/broadcasts', { ...base, html: '<p>Hi {{FIRST_NAME}}</p>' });
  t.equal(draft.status, 201, draft.text);
  for (const [raw] of malformed)
    assertRefusal(t, await call('PATCH', `/broadcasts/${draft.body.id}`, { text: `Hi ${raw}` }), 'text', raw);
  t.equal((await call('GET', `/broadcasts/${draft.body.id}`)).body.text, null, 'unchanged');
  for (const [raw, message] of [
    ['{{brand.nope}}', 'is neither a merge variable nor a brand token'],
    ['{{user.name}}', 'is neither a merge variable nor a brand token'],
    ['{{brand.font|x}}', 'a brand token takes no default'],
  ] as const) {
    const body = errorShape(t, await call('POST', '/broadcasts', { ...base, html: raw }), 422, 'validation_error');
    t.same(body.errors?.length, 1);
    t.match(body.errors?.[0], { path: 'html', message: new RegExp(message) });
  }
});
