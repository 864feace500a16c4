import t from 'tap';
import { newId } from '../../../lib/ids.js';
import { declared } from '../../helpers/declared-schema.js';
import { errorShape, request, type RequestOptions } from '../../helpers/http.js';
import { createOperator } from '../../helpers/operator.js';
import { startTestApp } from '../../helpers/test-app.js';

/**
 * The admin API of traffic shaping and IP warm-up (/admin/deliverability/..., /admin/ips/...):
 * rules in force, the actions shaping took (made by the real reaction path), lifting one, and
 * warm-up start/status/stop against the configured pools. Team keys are refused.
 */
const app = await startTestApp({
  config: {
    mta: {
      regions: { 'us-east-1': { ips: ['192.0.2.10', '192.0.2.11'] } },
      shaping: {
        providers: [{ name: 'acme', mx: ['mx.acme.test'], maxConnections: 2, messagesPerHour: 500 }],
        reactions: [
          { id: 'acme-busy', providers: ['acme'], codes: [421], text: 'busy', action: 'pause', pauseSeconds: 60 },
        ],
        restoreSeconds: 3600,
        settleSeconds: 0,
      },
      warmup: { schedule: { gmail: [50, 100, 200], default: [20, 40] } },
    },
  },
});
t.teardown(() => app.close());
const operator = await createOperator(app);
const team = await app.createTeam('Tenant', 'unlimited');
const origin = new URL(app.url).origin;
const admin = (path: string, options: RequestOptions = {}) =>
  request(app.url, path, { ...options, headers: { cookie: operator.cookie, origin, ...options.headers } });
const { shaping } = app.runtime.services;

t.test('GET /admin/deliverability/providers: built-in and configured rules, reactions, defaults', async (t) => {
  const res = await admin('/admin/deliverability/providers');
  t.equal(res.status, 200);
  declared(t, 'GET', '/admin/deliverability/providers', res);
  t.equal(res.body.enabled, true);
  const acme = res.body.providers[0];
  t.match(acme, {
    name: 'acme',
    mx: ['mx.acme.test'],
    max_connections: 2,
    messages_per_hour: 500,
    tls_required: false,
    source: 'operator configuration',
    origin: 'configuration',
  });
  t.match(
    res.body.providers.find((p: { name: string }) => p.name === 'gmail'),
    { mx: ['google.com', 'googlemail.com'], tls_required: true, origin: 'built_in', source: /Google/ },
  );
  t.match(res.body.reactions[0], {
    id: 'acme-busy',
    match: { providers: ['acme'], codes: [421], enhanced: null, text: 'busy' },
    action: 'pause',
    pause_seconds: 60,
    origin: 'configuration',
  });
  t.match(
    res.body.reactions.find((r: { id: string }) => r.id === 'gmail-rate-limit'),
    { action: 'slow', origin: 'built_in', example: /4\.7\.28/, match: { enhanced: ['4.7.28'] } },
  );
  t.type(res.body.default.tls_required, 'boolean');
});

t.test('actions: listed newest first, filtered, paged; lift one; errors', async (t) => {
  const gmail = { key: 'gmail', name: 'gmail' };
  const slow = await shaping.actions.react(gmail, '192.0.2.10', '421-4.7.28 Our system has detected an unusual rate');
  t.ok(slow, 'the gmail reply slowed the address');
  const pause = await shaping.actions.react({ key: 'acme', name: 'acme' }, '192.0.2.11', '421 busy, come back later');
  t.ok(pause, 'the configured reaction paused');
  const suspension = await shaping.actions.suspendMarketing(team.teamId, 'yahoo', 'complaint rate 0.5%', 24);

  const all = await admin('/admin/deliverability/actions');
  t.equal(all.status, 200);
  declared(t, 'GET', '/admin/deliverability/actions', all);
  t.same(
    all.body.data.map((a: { id: string }) => a.id),
    [suspension.id, pause!.id, slow!.id],
    'newest first',
  );
  t.match(all.body.data[2], {
    kind: 'slow',
    provider: 'gmail',
    egress_ip: '192.0.2.10',
    factor: 0.5,
    factor_now: 0.5,
    rule_id: 'gmail-rate-limit',
    reason: /4\.7\.28/,
    active: true,
  });
  t.match(all.body.data[0], { kind: 'suspend_marketing', team_id: team.teamId, egress_ip: null, factor_now: null });

  const byIp = await admin('/admin/deliverability/actions?ip=192.0.2.11');
  t.same(
    byIp.body.data.map((a: { kind: string }) => a.kind),
    ['pause'],
  );
  const byKind = await admin('/admin/deliverability/actions?kind=slow&provider=gmail');
  t.same(
    byKind.body.data.map((a: { id: string }) => a.id),
    [slow!.id],
  );
  const first = await admin('/admin/deliverability/actions?limit=2');
  t.equal(first.body.has_more, true);
  const second = await admin(`/admin/deliverability/actions?limit=2&after=${first.body.data[1].id}`);
  t.same(
    second.body.data.map((a: { id: string }) => a.id),
    [slow!.id],
  );
  t.equal(second.body.has_more, false);

  const lifted = await admin(`/admin/deliverability/actions/${pause!.id}`, { method: 'DELETE' });
  t.equal(lifted.status, 200);
  declared(t, 'DELETE', '/admin/deliverability/actions/:action_id', lifted);
  t.match(lifted.body, { id: pause!.id, kind: 'pause', active: false });
  const inForce = await shaping.actions.inForce();
  t.equal(inForce.pause('acme', '192.0.2.11', new Date()), null, 'the mta no longer sees the pause');
  const active = await admin('/admin/deliverability/actions?active=true');
  t.notOk(
    active.body.data.some((a: { id: string }) => a.id === pause!.id),
    'a lifted action is not active',
  );
  t.equal(active.body.data.length, 2);

  errorShape(t, await admin(`/admin/deliverability/actions/${pause!.id}`, { method: 'DELETE' }), 409, 'action_ended');
  errorShape(t, await admin(`/admin/deliverability/actions/${newId()}`, { method: 'DELETE' }), 404, 'not_found');
  errorShape(t, await admin(`/admin/deliverability/actions?after=${newId()}`), 422, 'invalid_parameter');
  errorShape(t, await admin('/admin/deliverability/actions?kind=bounce'), 422, 'invalid_parameter');
  errorShape(t, await admin('/admin/deliverability/actions?active=false'), 422, 'invalid_parameter');
});

t.test('warm-up: start on day N, status per provider, stop; refusals', async (t) => {
  const empty = await admin('/admin/ips/warmup');
  t.same(empty.body, { object: 'list', has_more: false, data: [] });

  const started = await admin('/admin/ips/192.0.2.10/warmup', { method: 'PUT', body: { day: 2 } });
  t.equal(started.status, 200);
  declared(t, 'PUT', '/admin/ips/:address/warmup', started);
  const today = new Date().toISOString().slice(0, 10);
  const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  t.match(started.body, { object: 'ip_warmup', address: '192.0.2.10', started_on: yesterday, day: 2, complete: false });
  // The mta's path: take today's allowance for a provider, count its answers.
  const [warming] = [...(await shaping.warmup.warming()).values()];
  t.same(await shaping.warmup.take(warming!, { key: 'gmail', name: 'gmail' }, 30, 'transactional'), { allowed: true });
  await shaping.warmup.countAnswer('192.0.2.10', 'gmail', '2xx');

  const status = await admin('/admin/ips/warmup');
  t.equal(status.status, 200);
  declared(t, 'GET', '/admin/ips/warmup', status);
  const [entry] = status.body.data;
  t.match(entry, { address: '192.0.2.10', day: 2, complete: false, sent_today: 30 });
  t.match(
    entry.providers.find((p: { provider: string }) => p.provider === 'gmail'),
    { allowance: 100, sent: 30, answers: { '2xx': 1, '4xx': 0 } },
  );
  t.match(
    entry.providers.find((p: { provider: string }) => p.provider === 'default'),
    { allowance: 40, sent: 0 },
  );

  const restarted = await admin('/admin/ips/192.0.2.10/warmup', { method: 'PUT' });
  t.match(restarted.body, { started_on: today, day: 1 }, 'no body: day 1 is today');
  const dated = await admin('/admin/ips/192.0.2.11/warmup', { method: 'PUT', body: { started_on: yesterday } });
  t.match(dated.body, { address: '192.0.2.11', day: 2 });

  const notPooled = errorShape(
    t,
    await admin('/admin/ips/198.51.100.1/warmup', { method: 'PUT', body: {} }),
    422,
    'validation_error',
  );
  t.match(notPooled.message, /192\.0\.2\.10, 192\.0\.2\.11/, 'names the pool addresses');
  errorShape(
    t,
    await admin('/admin/ips/192.0.2.10/warmup', { method: 'PUT', body: { started_on: '2999-01-01' } }),
    422,
    'validation_error',
  );
  // A body that is not valid is refused before anything is looked at (the API's usual 400).
  const both = await admin('/admin/ips/192.0.2.10/warmup', { method: 'PUT', body: { started_on: today, day: 2 } });
  t.match(errorShape(t, both, 400, 'validation_error').message, /not both/);
  errorShape(
    t,
    await admin('/admin/ips/192.0.2.10/warmup', { method: 'PUT', body: { started_on: '2026-02-30' } }),
    400,
    'validation_error',
  );

  const stopped = await admin('/admin/ips/192.0.2.10/warmup', { method: 'DELETE' });
  t.equal(stopped.status, 200);
  declared(t, 'DELETE', '/admin/ips/:address/warmup', stopped);
  t.same(stopped.body, { object: 'ip_warmup', address: '192.0.2.10', deleted: true });
  errorShape(t, await admin('/admin/ips/192.0.2.10/warmup', { method: 'DELETE' }), 404, 'not_found');
  t.same(
    (await admin('/admin/ips/warmup')).body.data.map((w: { address: string }) => w.address),
    ['192.0.2.11'],
  );
});

t.test('a team key is refused on every shaping route', async (t) => {
  for (const [method, path] of [
    ['GET', '/admin/deliverability/providers'],
    ['GET', '/admin/deliverability/actions'],
    ['DELETE', `/admin/deliverability/actions/${newId()}`],
    ['GET', '/admin/ips/warmup'],
    ['PUT', '/admin/ips/192.0.2.10/warmup'],
    ['DELETE', '/admin/ips/192.0.2.10/warmup'],
  ] as const)
    errorShape(
      t,
      await request(app.url, path, { method, token: team.token, body: method === 'PUT' ? {} : undefined }),
      403,
      'invalid_permission',
    );
});
