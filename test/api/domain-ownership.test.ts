import t from 'tap';
import { errorShape, request } from '../helpers/http.js';
import { TestDnsServer } from '../helpers/dns-server.js';
import { startTestApp } from '../helpers/test-app.js';
import { addVerifiedDomain } from '../helpers/verified-domain.js';

/**
 * Domains a team must not own: public suffixes (ICANN and private sections of the list tldts
 * ships), the appliance's own host names and names under them, names with bidirectional-control
 * or zero-width characters; the same characters refused in addresses and display names at
 * POST /emails. Reserved test names stay allowed.
 */
const dns = await TestDnsServer.start();
const app = await startTestApp({
  env: { MAILROOM_DNS_SERVERS: dns.address },
  config: {
    mta: {
      hostname: 'mta.mailroom.test',
      regions: { 'eu-west-1': { ips: [{ address: '127.0.0.1', helo: 'out-eu.mailroom.test' }] } },
    },
    inbound: { mxHost: 'mx.mailroom.test' },
    tracking: { host: 'track.mailroom.test' },
    sandbox: { simulatorDomain: 'simulator.mailroom.test' },
  },
});
t.teardown(async () => {
  await app.close();
  await dns.close();
});

const team = await app.createTeam('Ownership', 'unlimited');
await app.runtime.services.teams.setTier(team.teamId, 2);
const post = (name: string) => request(app.url, '/domains', { method: 'POST', token: team.token, body: { name } });
const domainCount = async () => (await request(app.url, '/domains', { token: team.token })).body.data.length as number;

t.test('public suffixes are refused with 422 validation_error naming name', async (t) => {
  for (const name of [
    'co.uk',
    'github.io',
    'blogspot.com',
    'CO.UK',
    'co.uk.',
    'com.au',
    's3.amazonaws.com',
    'kyoto.jp',
    'city.kawasaki.jp'.replace('city.', 'x.'),
  ]) {
    const body = errorShape(t, await post(name), 422, 'validation_error');
    t.match(body.message, /public suffix/, name);
    t.match(body.errors, [{ path: 'name', message: /public suffix/ }], name);
  }
  for (const name of ['com', 'org', 'COM.', 'xn--p1ai', 'рф', 'io']) {
    // a bare top-level suffix is refused as a suffix, not as a malformed name
    const body = errorShape(t, await post(name), 422, 'validation_error');
    t.match(body.message, /public suffix/, name);
    t.match(body.errors, [{ path: 'name', message: /public suffix/ }], name);
  }
  for (const name of ['localhost', 'example', 'invalid']) errorShape(t, await post(name), 400, 'validation_error'); // one label, not on the list: not a domain name
  t.equal(await domainCount(), 0, 'nothing stored');
});

t.test("the appliance's own host names and names under them are refused", async (t) => {
  const own = [
    'simulator.mailroom.test',
    'mta.mailroom.test',
    'mx.mailroom.test',
    'track.mailroom.test',
    'out-eu.mailroom.test',
    'x.simulator.mailroom.test',
    'a.b.mta.mailroom.test',
    'MTA.mailroom.test.',
  ];
  for (const name of own) {
    const body = errorShape(t, await post(name), 422, 'validation_error');
    t.match(body.errors, [{ path: 'name', message: /this appliance's own host name/ }], name);
  }
  t.equal(await domainCount(), 0, 'nothing stored');
});

t.test('bidirectional-control and zero-width characters in a domain name are refused', async (t) => {
  for (const [name, code] of [
    ['exa\u200bmple.org', 'U+200B'],
    ['example\u202e.org', 'U+202E'],
    ['\ufeffexample.org', 'U+FEFF'],
    ['exam\u200dple.org', 'U+200D'],
    ['ex\u2066ample.org', 'U+2066'],
    ['ex\u061cample.org', 'U+061C'],
    ['exa\u2060mple.org', 'U+2060'],
  ] as const) {
    const body = errorShape(t, await post(name), 422, 'validation_error');
    t.match(
      body.errors,
      [
        {
          path: 'name',
          message: new RegExp(`bidirectional-control or zero-width characters \\(${code.replace('+', '\\+')}\\)`),
        },
      ],
      code,
    );
  }
  t.equal(await domainCount(), 0, 'nothing stored, not even the name the characters would fold into');
});

t.test('reserved test names and names under a suffix stay allowed', async (t) => {
  for (const name of ['ownership.test', 'example.com', 'mail.example.co.uk', 'someone.github.io', 'mailroom.test']) {
    const res = await post(name);
    t.equal(res.status, 201, name);
  }
});

t.test('POST /emails: hidden characters in a local part, a domain or a display name are refused', async (t) => {
  await addVerifiedDomain(app, dns, team.token, 'sender-ownership.test');
  const send = (body: Record<string, unknown>) =>
    request(app.url, '/emails', {
      method: 'POST',
      token: team.token,
      body: { from: 'me@sender-ownership.test', to: 'a@example.net', subject: 's', text: 't', ...body },
    });
  const cases: Array<[string, Record<string, unknown>]> = [
    ['to', { to: 'ad\u200bmin@example.net' }],
    ['to', { to: ['ok@example.net', 'Bob\u202e <bob@example.net>'] }],
    ['cc', { cc: 'x@exa\u200cmple.net' }],
    ['bcc', { bcc: '\ufeffy@example.net' }],
    ['reply_to', { reply_to: 'Support\u2067 <help@example.net>' }],
    ['from', { from: 'Payroll\u202e <me@sender-ownership.test>' }],
    ['from', { from: 'm\u200de@sender-ownership.test' }],
  ];
  for (const [field, body] of cases) {
    const error = errorShape(t, await send(body), 422, 'validation_error');
    t.ok(
      (error.errors as Array<{ path: string; message: string }>).some(
        (e) => e.path.startsWith(field) && /bidirectional-control or zero-width/.test(e.message),
      ),
      `${field}: ${JSON.stringify(body)}`,
    );
  }
  const accepted = await send({ to: 'Zoë Ω <zoe@example.net>' });
  t.equal(accepted.status, 200, 'other non-ASCII names are fine');
});

t.test('the OpenAPI document states the rule on POST /domains name', async (t) => {
  const doc = (await request(app.url, '/openapi.json')).body;
  const name = doc.paths['/domains'].post.requestBody.content['application/json'].schema.properties.name;
  t.match(name.description, /public suffix/);
  t.match(name.description, /own host names/);
  t.match(name.description, /bidirectional-control or zero-width/);
});
