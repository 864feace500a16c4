import { Resend } from 'resend';
import t from 'tap';
import { errorShape, request } from '../helpers/http.js';
import { TestDnsServer } from '../helpers/dns-server.js';
import { startTestApp } from '../helpers/test-app.js';

const dns = await TestDnsServer.start();
const app = await startTestApp({
  env: { MAILROOM_DNS_SERVERS: dns.address },
  config: {
    mta: {
      hostname: 'mta.mailroom.test',
      regions: { 'us-east-1': { ips: ['192.0.2.10', '2001:db8::10'] }, 'eu-west-1': { ips: ['198.51.100.7'] } },
    },
    inbound: { mxHost: 'mx.mailroom.test' },
    tracking: { host: 'track.mailroom.test' },
  },
});
t.teardown(async () => {
  await app.close();
  await dns.close();
});
t.beforeEach(() => dns.clear());

const team = await app.createTeam('Domains', 'unlimited');
const post = (body: unknown, token = team.token) => request(app.url, '/domains', { method: 'POST', token, body });
const get = (id: string, token = team.token) => request(app.url, `/domains/${id}`, { token });
const verify = (id: string) => request(app.url, `/domains/${id}/verify`, { method: 'POST', token: team.token });

type RecordOut = {
  record: string;
  name: string;
  type: string;
  value: string;
  status: string;
  ttl: string;
  priority?: number;
};
const recordOf = (records: RecordOut[], record: string, type?: string) =>
  records.find((r) => r.record === record && (!type || r.type === type))!;

/** Publishes every record the API asked for in the test zone. */
function publish(records: RecordOut[], zone: string, only?: (r: RecordOut) => boolean) {
  for (const r of records.filter(only ?? (() => true))) {
    const name = r.name === '@' ? zone : `${r.name}.${zone}`;
    if (r.type === 'TXT') dns.add({ type: 'TXT', name, value: r.value });
    if (r.type === 'MX') dns.add({ type: 'MX', name, exchange: r.value, priority: r.priority });
    if (r.type === 'CNAME') dns.add({ type: 'CNAME', name, value: r.value });
  }
}

t.test('create: defaults, every record group, names relative to the zone, values pointing here', async (t) => {
  dns.add({ type: 'SOA', name: 'example.test' });
  const res = await post({ name: 'Mail.Example.TEST' });
  t.equal(res.status, 201);
  const d = res.body;
  t.match(d, {
    object: 'domain',
    name: 'mail.example.test',
    status: 'not_started',
    region: 'us-east-1',
    open_tracking: false,
    click_tracking: false,
    tracking_subdomain: 'links',
    custom_return_path: 'send',
    receiving_host: '@',
    tls: 'opportunistic',
    capabilities: { sending: 'enabled', receiving: 'disabled' },
    managed: false,
  });
  const records: RecordOut[] = d.records;
  t.same(
    records.map((r) => `${r.record}/${r.type}`),
    ['DKIM/TXT', 'SPF/TXT', 'SPF/MX', 'Tracking/CNAME', 'Receiving/MX'],
    'every group, always',
  );
  t.ok(records.every((r) => r.status === 'not_started'));
  t.match(recordOf(records, 'DKIM'), {
    name: /^mr[0-9a-f]{10}\._domainkey\.mail$/,
    value: /^v=DKIM1; k=rsa; p=[A-Za-z0-9+/=]{300,}$/,
  });
  t.same(recordOf(records, 'SPF', 'TXT'), {
    record: 'SPF',
    name: 'send.mail',
    type: 'TXT',
    ttl: 'Auto',
    status: 'not_started',
    value: 'v=spf1 ip4:192.0.2.10 ip6:2001:db8::10 ~all',
    last_checked_at: null,
  });
  t.match(recordOf(records, 'SPF', 'MX'), { name: 'send.mail', value: 'mta.mailroom.test', priority: 10 });
  t.match(recordOf(records, 'Tracking'), { name: 'links.mail', value: 'track.mailroom.test' });
  t.match(recordOf(records, 'Receiving'), { name: 'mail', value: 'mx.mailroom.test', priority: 10 });

  const apex = await post({ name: 'apex.test', region: 'sa-east-1' });
  t.same(
    apex.body.records.map((r: RecordOut) => r.record),
    ['DKIM', 'SPF', 'SPF', 'Tracking'],
    'no Receiving outside the receiving regions',
  );
  t.equal(recordOf(apex.body.records, 'SPF', 'TXT').value, 'v=spf1 ip4:127.0.0.1 ~all', "the region's own pool");
  t.equal(recordOf(apex.body.records, 'SPF', 'TXT').name, 'send', 'relative to the apex zone');
});

t.test('not_started -> pending -> partially_verified -> verified -> temporary_failure -> verified', async (t) => {
  dns.add({ type: 'SOA', name: 'life.test' });
  const created = (await post({ name: 'life.test', region: 'eu-west-1' })).body;
  t.equal(created.status, 'not_started');

  t.same((await verify(created.id)).body, { object: 'domain', id: created.id });
  let d = (await get(created.id)).body;
  t.equal(d.status, 'pending', 'nothing published yet');
  t.ok(
    d.records
      .filter((r: RecordOut) => r.record !== 'Tracking' && r.record !== 'Receiving')
      .every((r: RecordOut) => r.status === 'pending'),
  );

  publish(d.records, 'life.test', (r) => r.record === 'DKIM');
  await verify(created.id);
  d = (await get(created.id)).body;
  t.equal(d.status, 'partially_verified', 'only DKIM published');
  t.equal(recordOf(d.records, 'DKIM').status, 'verified');
  t.equal(recordOf(d.records, 'SPF', 'TXT').status, 'pending');

  publish(d.records, 'life.test', (r) => r.record === 'SPF');
  await app.runtime.db
    .knex('domains')
    .where({ id: created.id })
    .update({ next_check_at: new Date(Date.now() - 1000) });
  const round = await app.runtime.services.domainVerification.runDueChecks();
  t.ok(round.checked >= 1, 'the scheduler round checked it');
  d = (await get(created.id)).body;
  t.equal(d.status, 'verified', 'all required records published');
  t.equal(
    recordOf(d.records, 'Tracking').status,
    'pending',
    'tracking is listed but not required while tracking is off',
  );

  const teamView = (await request(app.url, '/team', { token: team.token })).body;
  t.match(
    teamView.sending,
    { tier: 1, tier_name: 'verified', next_unlock: 'operator_review' },
    'the first verified domain lifts the team to tier 1',
  );
  t.equal(teamView.sending.sandbox_regions.length, 4, 'still in the sandbox until tier 2');

  dns.servfail = true;
  await app.runtime.db
    .knex('domains')
    .where({ id: created.id })
    .update({ next_check_at: new Date(Date.now() - 1000) });
  await app.runtime.services.domainVerification.runDueChecks();
  d = (await get(created.id)).body;
  t.equal(d.status, 'temporary_failure', 'SERVFAIL is temporary, never failed');
  t.ok(d.records.every((r: RecordOut) => r.status === 'temporary_failure'));

  dns.servfail = false;
  await app.runtime.db
    .knex('domains')
    .where({ id: created.id })
    .update({ next_check_at: new Date(Date.now() - 1000) });
  await app.runtime.services.domainVerification.runDueChecks();
  t.equal((await get(created.id)).body.status, 'verified', 'and back');

  const events = await app.runtime.services.eventLog.list(team.teamId);
  const mine = events
    .filter((e) => e.data.id === created.id)
    .map((e) => `${e.type}:${e.data.status}`)
    .reverse();
  t.same(mine, [
    'domain.created:not_started',
    'domain.updated:pending',
    'domain.updated:partially_verified',
    'domain.updated:verified',
    'domain.updated:temporary_failure',
    'domain.updated:verified',
  ]);
  // The audit log: each request by the key, and what DNS decided as the appliance's finding.
  const audit = (await app.runtime.db
    .knex('audit_log_entries')
    .where({ team_id: team.teamId, resource_id: created.id })
    .orderBy('id', 'asc')) as Array<{ action: string; actor_type: string; metadata: string }>;
  t.same(
    audit.map((e) => `${e.action}:${e.actor_type}`),
    [
      'domain.created:api_key',
      'domain.verification_requested:api_key',
      'domain.verification_requested:api_key',
      'domain.verified:system',
      'domain.verification_lost:system',
      'domain.verified:system',
    ],
  );
  t.match(JSON.parse(audit[4]!.metadata), { status: 'temporary_failure', previous_status: 'verified' });
});

t.test('a pending domain with nothing published after 72 hours is failed', async (t) => {
  const created = (await post({ name: 'never.test' })).body;
  await verify(created.id);
  await app.runtime.db
    .knex('domains')
    .where({ id: created.id })
    .update({
      verification_started_at: new Date(Date.now() - 73 * 3600_000),
      next_check_at: new Date(Date.now() - 1000),
    });
  await app.runtime.services.domainVerification.runDueChecks();
  t.equal((await get(created.id)).body.status, 'failed');
  await verify(created.id);
  t.equal((await get(created.id)).body.status, 'pending', 'asking again starts a new round');
});

t.test('return_path_in_use is driven by the records another service holds', async (t) => {
  dns.add(
    { type: 'SOA', name: 'busy.test' },
    { type: 'TXT', name: 'send.busy.test', value: 'v=spf1 include:amazonses.com ~all' },
  );
  const refused = errorShape(
    t,
    await post({ name: 'busy.test', custom_return_path: 'send' }),
    422,
    'invalid_parameter',
  );
  t.same(refused.details, {
    reason: 'return_path_in_use',
    label: 'send',
    found: { type: 'TXT', value: 'v=spf1 include:amazonses.com ~all' },
    suggestion: 'send1',
  });

  dns.add({ type: 'MX', name: 'send1.busy.test', exchange: 'feedback-smtp.example.net' });
  const picked = await post({ name: 'busy.test' });
  t.equal(picked.status, 201);
  t.equal(picked.body.custom_return_path, 'send2', 'the first label unused at the domain');
  t.equal(recordOf(picked.body.records, 'SPF', 'TXT').name, 'send2');
});

t.test('receiving_mx_in_use unless confirm_replace_mx', async (t) => {
  dns.add({ type: 'MX', name: 'inbox.test', exchange: 'aspmx.l.google.com', priority: 1 });
  const body = { name: 'inbox.test', capabilities: { receiving: 'enabled' } };
  const refused = errorShape(t, await post(body), 409, 'receiving_mx_in_use');
  t.same(refused.details, { found: { type: 'MX', value: 'aspmx.l.google.com' } });
  const confirmed = await post({ ...body, confirm_replace_mx: true });
  t.equal(confirmed.status, 201);
  t.match(confirmed.body.capabilities, { sending: 'enabled', receiving: 'enabled' });
  dns.clear();
  dns.add({ type: 'MX', name: 'ours.test', exchange: 'mx.mailroom.test' });
  t.equal(
    (await post({ name: 'ours.test', capabilities: { receiving: 'enabled' } })).status,
    201,
    'an MX already pointing here is not in use',
  );
});

t.test('a name verified by another team is 409 resource_locked', async (t) => {
  dns.add({ type: 'SOA', name: 'taken.test' });
  const owner = await app.createTeam('Owner', 'unlimited');
  const created = (await post({ name: 'taken.test' }, owner.token)).body;
  const other = await app.createTeam('Other', 'unlimited');
  t.equal(
    (await post({ name: 'taken.test' }, other.token)).status,
    201,
    'while unverified another team may add it too',
  );
  publish(created.records, 'taken.test');
  await request(app.url, `/domains/${created.id}/verify`, { method: 'POST', token: owner.token });
  t.equal((await get(created.id, owner.token)).body.status, 'verified');
  const third = await app.createTeam('Third', 'unlimited');
  errorShape(t, await post({ name: 'taken.test' }, third.token), 409, 'resource_locked');
});

t.test('create refusals', async (t) => {
  for (const body of [
    { name: 'not a domain' },
    { name: 'localhost' },
    { name: '1.2.3.4' },
    { name: 'a..b' },
    { name: 'x.test', region: 'mars-1' },
    { name: 'x.test', tls: 'sometimes' },
    { name: 'x.test', tracking_subdomain: 'two.labels' },
    { name: 'x.test', extra: true },
  ]) {
    errorShape(t, await post(body), 400, 'validation_error');
  }
  const both = errorShape(
    t,
    await post({ name: 'x.test', capabilities: { sending: 'disabled', receiving: 'disabled' } }),
    400,
    'validation_error',
  );
  t.equal(both.errors?.[0]?.path, 'capabilities');
  const region = errorShape(
    t,
    await post({ name: 'x.test', region: 'ap-northeast-1', capabilities: { receiving: 'enabled' } }),
    400,
    'validation_error',
  );
  t.equal(region.errors?.[0]?.path, 'capabilities.receiving');
  errorShape(t, await post({}), 422, 'missing_required_field');
  t.equal((await post({ name: 'dup.test' })).status, 201);
  errorShape(t, await post({ name: 'DUP.test' }), 422, 'validation_error');
  const free = await app.createTeam('Free plan');
  t.equal((await post({ name: 'first.test' }, free.token)).status, 201);
  errorShape(t, await post({ name: 'second.test' }, free.token), 422, 'validation_error');
  const sending = await app.runtime.services.apiKeys.create(team.teamId, { name: 's', permission: 'sending_access' });
  errorShape(t, await post({ name: 'y.test' }, sending.token), 401, 'restricted_api_key');
  errorShape(t, await get('0199a0a0-0000-7000-8000-000000000000'), 404, 'not_found');
});

t.test('update: tracking, tls and capabilities; status follows what is required', async (t) => {
  dns.add({ type: 'SOA', name: 'upd.test' });
  const created = (await post({ name: 'upd.test' })).body;
  publish(created.records, 'upd.test', (r) => r.record !== 'Tracking');
  await verify(created.id);
  t.equal((await get(created.id)).body.status, 'verified');
  const res = await request(app.url, `/domains/${created.id}`, {
    method: 'PATCH',
    token: team.token,
    body: { click_tracking: true, tls: 'enforced' },
  });
  t.same(res.body, { object: 'domain', id: created.id });
  const d = (await get(created.id)).body;
  t.match(
    d,
    { click_tracking: true, tls: 'enforced', status: 'partially_verified' },
    'tracking on: its CNAME is now required',
  );
  const refused = await request(app.url, `/domains/${created.id}`, {
    method: 'PATCH',
    token: team.token,
    body: { capabilities: { sending: 'disabled' } },
  });
  errorShape(t, refused, 400, 'validation_error');
  errorShape(
    t,
    await request(app.url, `/domains/${created.id}`, {
      method: 'PATCH',
      token: team.token,
      body: { name: 'other.test' },
    }),
    400,
    'validation_error',
  );
});

t.test('the resend SDK: domains.create/get/list/update/verify/remove', async (t) => {
  const resend = new Resend(team.token, { baseUrl: `${app.url}/api/v1` } as never);
  const created = await resend.domains.create({
    name: 'sdk.test',
    region: 'eu-west-1',
    customReturnPath: 'bounces',
    openTracking: true,
  });
  t.equal(created.error, null);
  t.match(created.data, { name: 'sdk.test', region: 'eu-west-1', status: 'not_started', open_tracking: true });
  t.equal(recordOf((created.data as unknown as { records: RecordOut[] }).records, 'SPF', 'TXT').name, 'bounces');
  const id = created.data!.id;
  t.match((await resend.domains.get(id)).data, { object: 'domain', id, name: 'sdk.test' });
  t.ok((await resend.domains.list()).data!.data.some((d) => d.id === id));
  t.same((await resend.domains.update({ id, clickTracking: true })).data, { object: 'domain', id });
  t.same((await resend.domains.verify(id)).data, { object: 'domain', id });
  t.same((await resend.domains.remove(id)).data, { object: 'domain', id, deleted: true });
  t.equal((await resend.domains.get(id)).error?.name, 'not_found');
  const events = (await app.runtime.services.eventLog.list(team.teamId))
    .filter((e) => e.data.id === id)
    .map((e) => e.type);
  t.ok(events.includes('domain.created') && events.includes('domain.deleted'));
});

t.test('private keys are sealed at rest', async (t) => {
  const rows = await app.runtime.db.knex('dkim_keys').select('*');
  t.ok(rows.length > 0);
  const dump = JSON.stringify(rows);
  t.notMatch(dump, /PRIVATE KEY/);
  t.ok(rows.every((r: { private_key_sealed: string }) => r.private_key_sealed.startsWith('v1:')));
});
