import t from 'tap';
import { movableClock } from '../helpers/clock.js';
import { TestDnsServer } from '../helpers/dns-server.js';
import { expectEntry } from '../helpers/audit-entries.js';
import { errorShape, request } from '../helpers/http.js';
import { startTestApp } from '../helpers/test-app.js';
import { addVerifiedDomain } from '../helpers/verified-domain.js';

/**
 * Domain claims end to end, with real DNS answers from a test server and a movable clock: the
 * scheduler's round (DomainClaimChecks.runDueChecks, what the check-domain-claims job runs) is
 * called directly after moving time.
 */
const clock = movableClock();
const dns = await TestDnsServer.start();
const app = await startTestApp({
  clock,
  env: { MAILROOM_DNS_SERVERS: dns.address },
  config: {
    mta: { hostname: 'mta.mailroom.test', regions: { 'us-east-1': { ips: ['192.0.2.10'] } } },
    inbound: { mxHost: 'mx.mailroom.test' },
    tracking: { host: 'track.mailroom.test' },
  },
});
t.teardown(async () => {
  await app.close();
  await dns.close();
});

const HOUR = 3_600_000;
const later = (ms: number) => clock.advanceTo(clock.now().getTime() + ms);
const round = () => app.runtime.services.domainClaimChecks.runDueChecks();
const claim = (token: string, body: Record<string, unknown>) =>
  request(app.url, '/domains/claim', { method: 'POST', token, body });
const getClaim = (token: string, domainId: string) => request(app.url, `/domains/${domainId}/claim`, { token });
const verifyClaim = (token: string, domainId: string) =>
  request(app.url, `/domains/${domainId}/claim/verify`, { method: 'POST', token });
const statusOf = async (token: string, domainId: string) => (await getClaim(token, domainId)).body.status as string;
const publishClaim = (record: { name: string; value: string }) =>
  dns.add({ type: 'TXT', name: record.name, value: record.value });

/** A team that holds `name` verified through real DNS, allowed to send to anyone. */
async function owner(name: string) {
  const team = await app.createTeam(`Owner of ${name}`, 'unlimited');
  await app.runtime.services.teams.setTier(team.teamId, 2);
  return { ...team, domainId: await addVerifiedDomain(app, dns, team.token, name) };
}
const send = (token: string, name: string, extra: Record<string, unknown> = {}) =>
  request(app.url, '/emails', {
    method: 'POST',
    token,
    body: { from: `me@${name}`, to: 'someone@example.net', subject: 's', text: 't', ...extra },
  });
const events = async (teamId: string, type: string) =>
  ((await app.runtime.db.knex('events').where({ team_id: teamId, type }).orderBy('id')) as Array<{ data: string }>).map(
    (row) => JSON.parse(row.data) as { id: string; name: string; status: string },
  );

t.test('a claim that completes: the name moves, nothing of the old owner comes with it', async (t) => {
  const old = await owner('moving.test');
  const pinned = await app.runtime.services.apiKeys.create(old.teamId, {
    name: 'pinned',
    permission: 'sending_access',
    domain_id: old.domainId,
  });
  const oldEmail = (await send(old.token, 'moving.test')).body.id as string;
  await request(app.url, '/suppressions', { method: 'POST', token: old.token, body: { email: 'gone@example.net' } });
  const claimer = await app.createTeam('Claimer', 'unlimited');

  const created = await claim(claimer.token, { name: 'Moving.TEST' });
  t.equal(created.status, 201);
  const body = created.body;
  t.same(Object.keys(body).sort(), [
    ...['blocked_reason', 'created_at', 'domain_id', 'expires_at', 'failure_reason', 'id', 'name', 'object'],
    ...['record', 'region', 'status'],
  ]);
  t.match(body, {
    object: 'domain_claim',
    name: 'moving.test',
    status: 'pending',
    region: 'us-east-1',
    record: { type: 'TXT', name: 'moving.test', value: /^mailroom-domain-verification=[0-9a-f]{32}$/, ttl: 'Auto' },
    blocked_reason: null,
    failure_reason: null,
  });
  t.equal(Date.parse(body.expires_at) - Date.parse(body.created_at), 7 * 24 * HOUR, 'expires 7 days after creation');
  const placeholder = (await request(app.url, `/domains/${body.domain_id}`, { token: claimer.token })).body;
  t.match(placeholder, { object: 'domain', name: 'moving.test', status: 'not_started' });
  const oldDomain = (await request(app.url, `/domains/${old.domainId}`, { token: old.token })).body;
  const dkim = (domain: { records: Array<{ record: string; value: string }> }) =>
    domain.records.find((r) => r.record === 'DKIM')!.value;
  t.not(dkim(placeholder), dkim(oldDomain), 'fresh DKIM keys');
  t.match(await events(claimer.teamId, 'domain.created'), [{ id: body.domain_id, status: 'not_started' }]);

  const again = await claim(claimer.token, { name: 'moving.test' });
  t.equal(again.status, 200, 'an identical running claim answers 200');
  t.equal(again.body.id, body.id);
  const other = errorShape(
    t,
    await claim(claimer.token, { name: 'moving.test', region: 'eu-west-1' }),
    409,
    'resource_locked',
  );
  t.equal(other.claimable, false, 'a different request while one runs');
  errorShape(
    t,
    await request(app.url, `/domains/${body.domain_id}/verify`, { method: 'POST', token: claimer.token }),
    409,
    'resource_locked',
  );

  const asked = await verifyClaim(claimer.token, body.domain_id);
  t.equal(asked.status, 200);
  t.match(asked.body, { id: body.id, status: 'pending' }, 'verification is asynchronous');
  await round();
  t.equal(await statusOf(claimer.token, body.domain_id), 'pending', 'no TXT record yet');
  publishClaim(body.record);
  later(49 * HOUR); // past the owner's grace period and its last send
  t.match(await round(), { checked: 1, changed: 1 });
  t.equal(await statusOf(claimer.token, body.domain_id), 'completed');

  errorShape(t, await request(app.url, `/domains/${old.domainId}`, { token: old.token }), 404, 'not_found');
  t.match(await events(old.teamId, 'domain.deleted'), [{ id: old.domainId, name: 'moving.test' }]);
  t.match(await events(claimer.teamId, 'domain.updated'), [{ id: body.domain_id, status: 'not_started' }]);
  errorShape(t, await send(pinned.token, 'moving.test'), 403, 'restricted_api_key'); // the pinned key is revoked
  t.equal((await request(app.url, `/emails/${oldEmail}`, { token: old.token })).status, 200, 'old emails stay');
  errorShape(t, await request(app.url, `/emails/${oldEmail}`, { token: claimer.token }), 404, 'not_found');
  t.same((await request(app.url, '/emails', { token: claimer.token })).body.data, []);
  t.same((await request(app.url, '/suppressions', { token: claimer.token })).body.data, []);
  t.same((await verifyClaim(claimer.token, body.domain_id)).body.status, 'completed', 'verify after: unchanged');

  // The moved domain is an ordinary one now: its own records, verified as usual.
  for (const r of placeholder.records as Array<{ name: string; type: string; value: string; record: string }>) {
    if (r.type === 'TXT') dns.add({ type: 'TXT', name: `${r.name}.moving.test`.replace(/^@\./, ''), value: r.value });
    if (r.type === 'MX' && r.record === 'SPF')
      dns.add({ type: 'MX', name: `${r.name}.moving.test`, exchange: r.value });
  }
  await request(app.url, `/domains/${body.domain_id}/verify`, { method: 'POST', token: claimer.token });
  t.equal((await request(app.url, `/domains/${body.domain_id}`, { token: claimer.token })).body.status, 'verified');
  await app.runtime.services.teams.setTier(claimer.teamId, 2);
  t.equal((await send(claimer.token, 'moving.test')).status, 200, 'the claimer sends from the name');

  // The audit logs of both teams: who started the claim, and the appliance's move and verification.
  const system = { type: 'system', id: null, name: 'Mailroom' };
  await expectEntry(t, app, claimer.token, 'domain.claim_started', {
    resource: { type: 'domain', id: body.domain_id },
    actor: { type: 'api_key', id: claimer.keyId },
    metadata: { name: 'moving.test' },
  });
  await expectEntry(t, app, claimer.token, 'domain.claim_verification_requested', {
    resource: { type: 'domain', id: body.domain_id },
  });
  await expectEntry(t, app, claimer.token, 'domain.claimed', { resource: { id: body.domain_id }, actor: system });
  await expectEntry(t, app, old.token, 'domain.claimed_away', {
    resource: { type: 'domain', id: old.domainId },
    actor: system,
    metadata: { name: 'moving.test', revoked_api_keys: 1 },
  });
  await expectEntry(t, app, claimer.token, 'domain.verification_requested', { resource: { id: body.domain_id } });
  await expectEntry(t, app, claimer.token, 'domain.verified', {
    resource: { type: 'domain', id: body.domain_id },
    actor: system,
    metadata: { name: 'moving.test', status: 'verified' },
  });
});

t.test('a claim never verified expires after 7 days; a new one reuses the placeholder', async (t) => {
  await owner('expiring.test');
  const claimer = await app.createTeam('Late claimer', 'unlimited');
  const first = (await claim(claimer.token, { name: 'expiring.test' })).body;
  later(7 * 24 * HOUR - 60_000);
  await round();
  t.equal(await statusOf(claimer.token, first.domain_id), 'pending', 'not yet');
  later(2 * 60_000);
  await round();
  t.equal(await statusOf(claimer.token, first.domain_id), 'expired');
  const refused = errorShape(t, await verifyClaim(claimer.token, first.domain_id), 422, 'validation_error');
  t.match(refused.message, /expired/);
  const second = await claim(claimer.token, { name: 'expiring.test' });
  t.equal(second.status, 201);
  t.not(second.body.id, first.id);
  t.equal(second.body.domain_id, first.domain_id, 'same placeholder');
  t.not(second.body.record.value, first.record.value, 'a new TXT value');
  t.match((await getClaim(claimer.token, first.domain_id)).body, { id: second.body.id, status: 'pending' });
});

t.test('a blocked claim: grace period, scheduled emails, recent activity, then it completes', async (t) => {
  const old = await owner('busy-owner.test');
  const claimer = await app.createTeam('Patient claimer', 'unlimited');
  const body = (await claim(claimer.token, { name: 'busy-owner.test' })).body;
  publishClaim(body.record);
  await verifyClaim(claimer.token, body.domain_id);
  await round();
  t.match((await getClaim(claimer.token, body.domain_id)).body, { status: 'blocked', blocked_reason: 'grace_period' });

  const scheduled = (await send(old.token, 'busy-owner.test', { scheduled_at: 'in 5 days' })).body.id as string;
  later(49 * HOUR);
  await round();
  t.match((await getClaim(claimer.token, body.domain_id)).body, {
    status: 'blocked',
    blocked_reason: 'pending_scheduled_emails',
  });

  await request(app.url, `/emails/${scheduled}/cancel`, { method: 'POST', token: old.token });
  t.equal((await send(old.token, 'busy-owner.test')).status, 200);
  later(16 * 60_000);
  await round();
  t.match((await getClaim(claimer.token, body.domain_id)).body, {
    status: 'blocked',
    blocked_reason: 'recent_owner_activity',
  });
  later(25 * HOUR);
  await round();
  t.match((await getClaim(claimer.token, body.domain_id)).body, { status: 'completed', blocked_reason: null });
  errorShape(t, await request(app.url, `/domains/${old.domainId}`, { token: old.token }), 404, 'not_found');
});

t.test('a claim blocked until its time runs out expires', async (t) => {
  const old = await owner('held.test');
  const claimer = await app.createTeam('Blocked claimer', 'unlimited');
  t.equal((await send(old.token, 'held.test', { scheduled_at: 'in 20 days' })).status, 200);
  const body = (await claim(claimer.token, { name: 'held.test' })).body;
  publishClaim(body.record);
  await verifyClaim(claimer.token, body.domain_id);
  later(49 * HOUR);
  await round();
  t.match((await getClaim(claimer.token, body.domain_id)).body, { blocked_reason: 'pending_scheduled_emails' });
  later(6 * 24 * HOUR);
  await round();
  t.match((await getClaim(claimer.token, body.domain_id)).body, { status: 'expired', blocked_reason: null });
  t.equal((await request(app.url, `/domains/${old.domainId}`, { token: old.token })).status, 200, 'owner keeps it');
});

t.test('a second claim by another team supersedes the first', async (t) => {
  await owner('contested.test');
  const first = await app.createTeam('First claimer', 'unlimited');
  const second = await app.createTeam('Second claimer', 'unlimited');
  const a = (await claim(first.token, { name: 'contested.test' })).body;
  publishClaim(a.record);
  await verifyClaim(first.token, a.domain_id);
  const b = await claim(second.token, { name: 'contested.test' });
  t.equal(b.status, 201);
  t.equal(await statusOf(first.token, a.domain_id), 'superseded');
  t.equal(await statusOf(second.token, b.body.domain_id), 'pending');
  errorShape(t, await verifyClaim(first.token, a.domain_id), 422, 'validation_error');
  later(49 * HOUR);
  await round();
  t.equal(await statusOf(first.token, a.domain_id), 'superseded', 'its published record no longer counts');
  const again = await claim(first.token, { name: 'contested.test' });
  t.equal(again.status, 201, 'the first team may claim again');
  t.equal(await statusOf(second.token, b.body.domain_id), 'superseded');
});

t.test('deleting the placeholder domain cancels the claim', async (t) => {
  await owner('abandoned.test');
  const claimer = await app.createTeam('Quitter', 'unlimited');
  const body = (await claim(claimer.token, { name: 'abandoned.test' })).body;
  const removed = await request(app.url, `/domains/${body.domain_id}`, { method: 'DELETE', token: claimer.token });
  t.equal(removed.status, 200);
  const row = await app.runtime.services.domainClaims.repository.findById(body.id);
  t.equal(row?.status, 'canceled');
  errorShape(t, await getClaim(claimer.token, body.domain_id), 404, 'not_found');
  t.equal((await claim(claimer.token, { name: 'abandoned.test' })).status, 201, 'a fresh claim may start');
});
