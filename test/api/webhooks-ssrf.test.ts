import t from 'tap';
import { loadConfig } from '../../lib/config/load-config.js';
import { TestDnsServer } from '../helpers/dns-server.js';
import { errorShape, request } from '../helpers/http.js';
import { startWebhookApp, WebhookReceiver } from '../helpers/webhook-receiver.js';

/**
 * Endpoint URLs may not reach internal addresses: not at create or update, and not at delivery
 * (a name that rebinds to one after creation is refused then, nothing sent). http is allowed
 * here (webhooks.allowHttp) so that the address policy is what refuses; the allow-list is empty.
 */
const dns = await TestDnsServer.start();
const receiver = await WebhookReceiver.start('127.0.0.1');
const fx = await startWebhookApp({
  env: { MAILROOM_DNS_SERVERS: dns.address },
  webhooks: { allowAddresses: [], retrySchedule: [0.2, 0.2] },
});
t.teardown(async () => {
  await fx.close();
  await receiver.down();
  await dns.close();
});
const create = (endpoint: string) =>
  request(fx.app.url, '/webhooks', {
    method: 'POST',
    token: fx.team.token,
    body: { endpoint, events: ['suppression.added'] },
  });

t.test('the default configuration is https only with nothing internal allowed', async (t) => {
  const config = loadConfig({ MAILROOM_CONFIG: '' });
  t.equal(config.webhooks.allowHttp, false);
  t.same(config.webhooks.allowAddresses, []);
});

t.test('loopback, private, link-local and unspecified addresses are refused at create', async (t) => {
  const port = receiver.boundPort;
  for (const host of [
    '127.0.0.1',
    '127.1.2.3',
    '10.0.0.5',
    '172.16.0.1',
    '172.31.255.254',
    '192.168.1.1',
    '169.254.169.254',
    '0.0.0.0',
    '100.64.0.1',
    '[::1]',
    '[fe80::1]',
    '[fd00::1]',
    '[::ffff:127.0.0.1]',
  ]) {
    const body = errorShape(t, await create(`http://${host}:${port}/hook`), 422, 'validation_error');
    t.match(body.errors, [{ path: 'endpoint', message: /private, loopback or link-local/ }], host);
  }
  t.equal(receiver.received.length, 0, 'nothing was contacted');
});

t.test('names resolving to internal addresses are refused, also when only one address is', async (t) => {
  dns.add({ type: 'A', name: 'internal.hooks.test', address: '10.1.2.3' });
  dns.add({ type: 'A', name: 'metadata.hooks.test', address: '169.254.169.254' });
  dns.add({ type: 'A', name: 'loop.hooks.test', address: '127.0.0.1' });
  dns.add(
    { type: 'A', name: 'mixed.hooks.test', address: '93.184.216.10' },
    { type: 'A', name: 'mixed.hooks.test', address: '192.168.0.10' },
  );
  dns.add({ type: 'AAAA', name: 'six.hooks.test', address: '::1' });
  for (const name of ['internal', 'metadata', 'loop', 'mixed', 'six']) {
    const body = errorShape(t, await create(`https://${name}.hooks.test/hook`), 422, 'validation_error');
    t.match(body.message, /resolves to .*private, loopback or link-local/, name);
  }
  const unresolvable = errorShape(t, await create('https://nowhere.hooks.test/hook'), 422, 'validation_error');
  t.match(unresolvable.message, /does not resolve/);
});

t.test('update to an internal URL is refused and changes nothing', async (t) => {
  dns.add({ type: 'A', name: 'public.hooks.test', address: '93.184.216.20' });
  const created = await create('https://public.hooks.test/hook');
  t.equal(created.status, 201, 'a public address is accepted');
  errorShape(
    t,
    await request(fx.app.url, `/webhooks/${created.body.id}`, {
      method: 'PATCH',
      token: fx.team.token,
      body: { endpoint: 'https://internal.hooks.test/hook' },
    }),
    422,
    'validation_error',
  );
  t.equal(
    (await request(fx.app.url, `/webhooks/${created.body.id}`, { token: fx.team.token })).body.endpoint,
    'https://public.hooks.test/hook',
  );
  await request(fx.app.url, `/webhooks/${created.body.id}`, { method: 'DELETE', token: fx.team.token });
});

t.test(
  'rebinding between create and delivery: refused at delivery, recorded as a failed attempt, nothing sent',
  async (t) => {
    dns.add({ type: 'A', name: 'rebind.hooks.test', address: '93.184.216.30' });
    const created = await create(`http://rebind.hooks.test:${receiver.boundPort}/hook`);
    t.equal(created.status, 201, 'accepted while it resolves to a public address');
    dns.remove((r) => r.name === 'rebind.hooks.test');
    dns.add({ type: 'A', name: 'rebind.hooks.test', address: '127.0.0.1' });
    await fx.app.runtime.services.suppressions.add(fx.team.teamId, 'rebind@example.com');
    const [event] = await fx.app.runtime.services.eventLog.list(fx.team.teamId, { type: 'suppression.added' });
    const path = `/webhooks/${created.body.id}/events/${event!.id}`;
    let delivery: { status: string } = { status: 'pending' };
    for (let i = 0; i < 200 && delivery.status !== 'failed'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      delivery = (await request(fx.app.url, path, { token: fx.team.token })).body;
    }
    t.equal(delivery.status, 'failed', 'every attempt refused, then failed');
    const attempts = (await request(fx.app.url, `${path}/attempts`, { token: fx.team.token })).body.data;
    t.equal(attempts.length, 3, 'each attempt recorded');
    for (const attempt of attempts)
      t.match(attempt, {
        http_status_code: 0,
        response: '',
        error: /not sent: rebind\.hooks\.test resolves to 127\.0\.0\.1/,
      });
    t.equal(receiver.received.length, 0, 'the loopback receiver got nothing');
  },
);

t.test('https only unless webhooks.allowHttp', async (t) => {
  const strict = await startWebhookApp({ webhooks: { allowHttp: false, allowAddresses: [] } });
  t.teardown(() => strict.close());
  const body = errorShape(
    t,
    await request(strict.app.url, '/webhooks', {
      method: 'POST',
      token: strict.team.token,
      body: { endpoint: 'http://93.184.216.34/hook', events: ['email.sent'] },
    }),
    422,
    'validation_error',
  );
  t.match(body.message, /must be an https URL/);
  const ok = await request(strict.app.url, '/webhooks', {
    method: 'POST',
    token: strict.team.token,
    body: { endpoint: 'https://93.184.216.34/hook', events: ['email.sent'] },
  });
  t.equal(ok.status, 201);
});
