import t from 'tap';
import { TestDnsServer } from '../helpers/dns-server.js';
import { errorShape, request } from '../helpers/http.js';
import { startWebhookApp, type WebhookApp } from '../helpers/webhook-receiver.js';

/**
 * Every spelling of an internal address, as a URL host and (for the literal addresses) as a
 * name that resolves to it, is refused at POST /webhooks with 422 validation_error and never
 * stored: loopback, private, link-local, cloud metadata, carrier-grade NAT, unspecified,
 * multicast and reserved, in IPv4 (decimal, octal, hex, short forms) and in every IPv6 form
 * that embeds an IPv4 address. Run with https only and with webhooks.allowHttp, the allow-list
 * empty, so the address policy alone decides.
 */

/** URL host spellings that the URL parser turns into an internal IPv4 address. */
const IPV4_SPELLINGS = [
  '127.0.0.1',
  '127.1',
  '127.0.1',
  '2130706433',
  '0x7f000001',
  '0x7f.0.0.1',
  '0177.0.0.1',
  '0177.0.0.01',
  '017700000001',
  '127.255.255.254',
  '0.0.0.0',
  '0',
  '0x0',
  '10.0.0.1',
  '10.255.255.255',
  '012.0.0.1',
  '0xa.0.0.1',
  '167772161',
  '172.16.0.1',
  '172.31.255.255',
  '0xac100001',
  '192.168.0.1',
  '3232235521',
  '0xc0a80001',
  '0300.0250.0.1',
  '169.254.169.254',
  '0xa9fea9fe',
  '2852039166',
  '0251.0376.0251.0376',
  '169.254.0.1',
  '100.64.0.1',
  '100.100.100.200',
  '192.0.0.192',
  '224.0.0.1',
  '255.255.255.255',
  '240.0.0.1',
  '198.18.0.1',
];

/** IPv6 literals: native internal ranges and every form that carries an internal IPv4 address. */
const IPV6_LITERALS = [
  '::1',
  '0:0:0:0:0:0:0:1',
  '0000::0001',
  '::',
  '0::0',
  'fe80::1',
  'fe80::a9fe:a9fe',
  'febf::1',
  'fc00::1',
  'fd00::1',
  'fd00:ec2::254',
  'fec0::1',
  'ff02::1',
  '100::1',
  '2001:db8::1',
  '::ffff:127.0.0.1',
  '::ffff:7f00:1',
  '0:0:0:0:0:ffff:127.0.0.1',
  '::ffff:10.0.0.1',
  '::ffff:169.254.169.254',
  '::ffff:0.0.0.0',
  '::ffff:0:127.0.0.1',
  '::ffff:0:7f00:1',
  '::ffff:0:a9fe:a9fe', // SIIT
  '::127.0.0.1',
  '::7f00:1',
  '::a00:1',
  '::a9fe:a9fe', // IPv4-compatible (deprecated)
  '64:ff9b::127.0.0.1',
  '64:ff9b::7f00:1',
  '64:ff9b::a9fe:a9fe',
  '64:ff9b::c0a8:1', // NAT64 well-known
  '64:ff9b:1::7f00:1',
  '64:ff9b:1:7f00:1::',
  '64:ff9b:1::808:808', // NAT64 local-use: never global
  '2002:7f00:1::',
  '2002:7f00:1::1',
  '2002:a00:1::1',
  '2002:a9fe:a9fe::',
  '2002:c0a8:1::1', // 6to4
  '2001:0:7f00:1::',
  '2001:0:4136:e378:8000:63bf:80ff:fffe',
  '2001:0:a00:1::1', // Teredo: internal server, or internal client (inverted)
];

const PUBLIC = [
  '93.184.216.34',
  '[2606:4700::1111]',
  '[::ffff:8.8.8.8]',
  '[64:ff9b::808:808]',
  '[2002:808:808::1]',
  '[2001:0:4136:e378:8000:63bf:f7f7:f7f7]',
];

const dns = await TestDnsServer.start();
IPV6_LITERALS.forEach((address, i) => dns.add({ type: 'AAAA', name: `v6-${i}.forms.test`, address }));
const v4Canonical = IPV4_SPELLINGS.map((spelling) => new URL(`http://${spelling}/`).hostname);
v4Canonical.forEach((address, i) => dns.add({ type: 'A', name: `v4-${i}.forms.test`, address }));

const hosts = [
  ...IPV4_SPELLINGS,
  ...IPV6_LITERALS.map((address) => `[${address}]`),
  ...IPV4_SPELLINGS.map((_, i) => `v4-${i}.forms.test`),
  ...IPV6_LITERALS.map((_, i) => `v6-${i}.forms.test`),
];

t.ok(hosts.length >= 80, `${hosts.length} forms`);

for (const allowHttp of [false, true]) {
  t.test(`webhooks.allowHttp ${allowHttp}: every internal form refused, public ones accepted`, async (t) => {
    const fx: WebhookApp = await startWebhookApp({
      env: { MAILROOM_DNS_SERVERS: dns.address },
      webhooks: { allowHttp, allowAddresses: [] },
    });
    t.teardown(() => fx.close());
    const create = (endpoint: string) =>
      request(fx.app.url, '/webhooks', {
        method: 'POST',
        token: fx.team.token,
        body: { endpoint, events: ['email.sent'] },
      });
    const schemes = allowHttp ? ['https', 'http'] : ['https'];
    for (const scheme of schemes) {
      for (const host of hosts) {
        const body = errorShape(t, await create(`${scheme}://${host}:8443/hook`), 422, 'validation_error');
        t.match(body.errors, [{ path: 'endpoint', message: /private, loopback or link-local/ }], `${scheme}://${host}`);
      }
    }
    t.equal((await request(fx.app.url, '/webhooks', { token: fx.team.token })).body.data.length, 0, 'nothing stored');
    for (const host of PUBLIC) t.equal((await create(`https://${host}/hook`)).status, 201, `accepted: ${host}`);
  });
}

t.test('control characters in the URL are refused, never stored', async (t) => {
  const fx = await startWebhookApp({ webhooks: { allowHttp: true, allowAddresses: [] } });
  t.teardown(() => fx.close());
  for (const endpoint of [
    'https://93.184.216.34/hook\r\nX-Injected: 1',
    'https://93.184.216.34/ho\nok',
    'https://93.184.216.34/hook\n',
    'https://93.184.\t216.34/hook',
    'https://93.184.216.34/\u0000',
    'https://93.184.216.34/\u007f',
    'https://93.184.216.34/\u0085',
  ]) {
    const body = errorShape(
      t,
      await request(fx.app.url, '/webhooks', {
        method: 'POST',
        token: fx.team.token,
        body: { endpoint, events: ['email.sent'] },
      }),
      422,
      'validation_error',
    );
    t.match(body.errors, [{ path: 'endpoint', message: /control characters/ }], JSON.stringify(endpoint));
  }
  t.equal((await request(fx.app.url, '/webhooks', { token: fx.team.token })).body.data.length, 0, 'nothing stored');
  const created = await request(fx.app.url, '/webhooks', {
    method: 'POST',
    token: fx.team.token,
    body: { endpoint: 'https://93.184.216.34/hook', events: ['email.sent'] },
  });
  t.equal(created.status, 201);
  errorShape(
    t,
    await request(fx.app.url, `/webhooks/${created.body.id}`, {
      method: 'PATCH',
      token: fx.team.token,
      body: { endpoint: 'https://93.184.216.34/a\r\nb' },
    }),
    422,
    'validation_error',
  );
  t.equal(
    (await request(fx.app.url, `/webhooks/${created.body.id}`, { token: fx.team.token })).body.endpoint,
    'https://93.184.216.34/hook',
    'update refused, nothing changed',
  );
});

t.teardown(() => dns.close());
