import t from 'tap';
import { Secret, TOTP } from 'otpauth';
import { asBrowser, captureAccountLinks, sessionCookieOf, sessionInTeam } from '../../helpers/accounts.js';
import { expectEntry } from '../../helpers/audit-entries.js';
import { uploadImport } from '../../helpers/contact-imports.js';
import { errorShape, request } from '../../helpers/http.js';
import { png } from '../../helpers/images.js';
import { createOperator } from '../../helpers/operator.js';
import { startTestApp } from '../../helpers/test-app.js';
import { markedVerifiedDomain } from '../../helpers/verified-domain.js';
import { approve, discover, exchange, registerClient } from '../oauth/oauth-fixture.js';

/**
 * Each audited action, performed through the API the way a person, a key, an OAuth app or an
 * operator performs it, then read back from GET /audit-logs: the action, the resource, the actor
 * and where it came from. The last test reads every entry written here and finds no key, token,
 * secret, password or body in any of them.
 */
const app = await startTestApp();
t.teardown(() => app.close());
const mail = captureAccountLinks(app);
t.teardown(mail.restore);

const team = await app.createTeam('Audited', 'pro');
const ownerEmail = 'olive@audited.test';
const ownerCookie = await sessionInTeam(app, ownerEmail, team.teamId, 'owner');
const ownerId = (await app.runtime.db.knex('users').where({ email: ownerEmail }).first('id')).id as string;
const UA = 'audit-tests/1.0 (keys)';
const call = (method: string, path: string, body?: unknown) =>
  request(app.url, path, { method, token: team.token, body, userAgent: UA });
const asOwner = (method: string, path: string, body?: unknown) =>
  asBrowser(app, path, ownerCookie, { method, body, userAgent: 'AuditBrowser/2.0' });
const keyActor = { type: 'api_key', id: team.keyId };
const ownerActor = { type: 'user', id: ownerId, name: ownerEmail };
/** Every credential and body these tests see: none may appear in any entry (the last test). */
const secrets: string[] = [];

t.test('API keys: created, renamed and revoked, with the caller, address and User-Agent', async (t) => {
  const created = await call('POST', '/api-keys', { name: 'CI deploys', permission: 'sending_access' });
  t.equal(created.status, 201);
  secrets.push(created.body.token);
  const entry = await expectEntry(t, app, team.token, 'api_key.created', {
    resource: { type: 'api_key', id: created.body.id },
    actor: keyActor,
    metadata: { name: 'CI deploys', permission: 'sending_access', domain_id: null },
  });
  t.match(entry, { ip: /127\.0\.0\.1$/, user_agent: UA, created_at: String });
  t.equal((await call('PATCH', `/api-keys/${created.body.id}`, { name: 'CI' })).status, 200);
  await expectEntry(t, app, team.token, 'api_key.renamed', {
    resource: { id: created.body.id },
    metadata: { name: 'CI' },
  });
  t.equal((await asOwner('DELETE', `/api-keys/${created.body.id}`)).status, 200);
  const revoked = await expectEntry(t, app, team.token, 'api_key.revoked', {
    resource: { type: 'api_key', id: created.body.id },
    actor: ownerActor,
  });
  t.equal(revoked?.user_agent, 'AuditBrowser/2.0', 'the dashboard session acted');
});

t.test('a refused change writes no entry', async (t) => {
  const before = await call('GET', '/audit-logs?limit=100');
  errorShape(t, await call('POST', '/api-keys', { name: '' }), 400, 'validation_error');
  errorShape(t, await call('DELETE', '/api-keys/0199a0a0-0000-7000-8000-000000000000'), 404, 'not_found');
  const after = await call('GET', '/audit-logs?limit=100');
  t.same(after.body.data.length, before.body.data.length);
});

t.test('domains: added, updated, DKIM rotated, deleted; verified by the appliance', async (t) => {
  const created = await call('POST', '/domains', { name: 'audited-mail.test' });
  t.equal(created.status, 201);
  const id = created.body.id as string;
  await expectEntry(t, app, team.token, 'domain.created', {
    resource: { type: 'domain', id },
    metadata: { name: 'audited-mail.test' },
  });
  await call('PATCH', `/domains/${id}`, { open_tracking: true });
  await expectEntry(t, app, team.token, 'domain.updated', {
    resource: { id },
    metadata: { changed: ['open_tracking'] },
  });
  t.equal((await call('POST', `/domains/${id}/dkim/rotate`, {})).status, 200);
  await expectEntry(t, app, team.token, 'domain.dkim_rotated', { resource: { id } });
  // `mailroom dev trust-domain`: the same verification round as DNS, which the appliance records.
  await app.runtime.services.domainVerification.trustWithoutDns(team.teamId, id);
  await expectEntry(t, app, team.token, 'domain.verified', {
    resource: { id },
    actor: { type: 'system', id: null, name: 'Mailroom' },
    metadata: { name: 'audited-mail.test', status: 'verified' },
  });
  t.equal((await call('DELETE', `/domains/${id}`)).status, 200);
  await expectEntry(t, app, team.token, 'domain.deleted', { resource: { type: 'domain', id }, actor: keyActor });
});

t.test('webhooks: created, updated, signing secret rotated, deleted; the secret never recorded', async (t) => {
  const created = await call('POST', '/webhooks', { endpoint: 'https://93.184.216.10/hook', events: ['email.sent'] });
  t.equal(created.status, 201);
  secrets.push(created.body.signing_secret);
  const id = created.body.id as string;
  await expectEntry(t, app, team.token, 'webhook.created', {
    resource: { type: 'webhook', id },
    metadata: { endpoint: 'https://93.184.216.10/hook', events: ['email.sent'] },
  });
  await call('PATCH', `/webhooks/${id}`, { events: ['email.sent', 'email.bounced'] });
  await expectEntry(t, app, team.token, 'webhook.updated', { resource: { id }, metadata: { changed: ['events'] } });
  const rotated = await call('POST', `/webhooks/${id}/signing-secret/rotate`);
  t.equal(rotated.status, 200);
  for (const value of Object.values(rotated.body))
    if (typeof value === 'string' && value.startsWith('whsec_')) secrets.push(value);
  await expectEntry(t, app, team.token, 'webhook.secret_rotated', { resource: { id } });
  await call('DELETE', `/webhooks/${id}`);
  await expectEntry(t, app, team.token, 'webhook.deleted', { resource: { id } });
});

t.test('members: invited, invitation revoked, joined, role changed, removed', async (t) => {
  const invited = await asOwner('POST', '/auth/invitations', { email: 'ivy@audited.test', role: 'admin' });
  t.equal(invited.status, 201);
  await expectEntry(t, app, team.token, 'invitation.created', {
    resource: { type: 'invitation', id: invited.body.id },
    actor: ownerActor,
    metadata: { email: 'ivy@audited.test', role: 'admin' },
  });
  const dropped = await asOwner('POST', '/auth/invitations', { email: 'dan@audited.test', role: 'member' });
  await asOwner('DELETE', `/auth/invitations/${dropped.body.id}`);
  await expectEntry(t, app, team.token, 'invitation.revoked', { resource: { id: dropped.body.id }, actor: ownerActor });

  const token = mail.last('invitation', 'ivy@audited.test');
  secrets.push(token, 'ivy secret password');
  const accepted = await asBrowser(app, '/auth/invitations/accept', null, {
    method: 'POST',
    body: { token, password: 'ivy secret password', name: 'Ivy' },
  });
  t.equal(accepted.status, 201);
  const ivy = accepted.body.user as { id: string };
  await expectEntry(t, app, team.token, 'member.joined', {
    resource: { type: 'user', id: ivy.id },
    actor: { type: 'user', id: ivy.id, name: 'ivy@audited.test' },
    metadata: { via: 'invitation' },
  });

  const members = (await call('GET', '/team/members')).body.data as Array<{ id: string; email: string }>;
  const member = members.find((m) => m.email === 'ivy@audited.test')!;
  const changed = await asOwner('PATCH', `/team/members/${member.id}`, { role: 'member' });
  t.match(changed.body, { object: 'team_member', id: member.id, role: 'member', previous_role: 'admin' });
  await expectEntry(t, app, team.token, 'member.role_changed', {
    resource: { type: 'team_member', id: member.id },
    actor: ownerActor,
    metadata: { email: 'ivy@audited.test', role: 'member', previous_role: 'admin' },
  });
  t.equal((await asOwner('DELETE', `/team/members/${member.id}`)).status, 200);
  await expectEntry(t, app, team.token, 'member.removed', {
    resource: { id: member.id },
    metadata: { email: 'ivy@audited.test', role: 'member' },
  });
});

t.test('sign-ins: a password, an MFA code, a recovery code; a challenge alone is not a sign-in', async (t) => {
  const email = 'sid@audited.test';
  const password = 'sid signs in with this';
  secrets.push(password);
  const { user } = await app.runtime.services.accounts.createByOperator({
    email,
    teamId: team.teamId,
    role: 'member',
    password,
  });
  const actor = { type: 'user', id: user.id, name: email };
  const signIn = () =>
    asBrowser(app, '/auth/login', null, { method: 'POST', body: { email, password }, userAgent: 'SignIn/1.0' });
  const countSignIns = async () =>
    (await app.runtime.db.knex('audit_log_entries').where({ action: 'user.signed_in', actor_id: user.id })).length;

  const plain = await signIn();
  t.equal(plain.status, 200);
  const entry = await expectEntry(t, app, team.token, 'user.signed_in', {
    resource: { type: 'user', id: user.id },
    actor,
    metadata: { method: 'password' },
  });
  t.match(entry, { ip: /127\.0\.0\.1$/, user_agent: 'SignIn/1.0' });
  errorShape(
    t,
    await asBrowser(app, '/auth/login', null, { method: 'POST', body: { email, password: 'wrong' } }),
    401,
    'invalid_api_key',
  );
  t.equal(await countSignIns(), 1, 'a refused password writes no entry');

  // With MFA on, the password alone answers a challenge: the entry comes with the second factor.
  const cookie = sessionCookieOf(plain);
  const enrol = await asBrowser(app, '/auth/mfa/enrol', cookie, { method: 'POST', body: {} });
  // A code works once per 30-second step and the server accepts one step either side: enrol
  // with the previous step's code and sign in with the next one's, whatever the clock does between.
  const totp = (offsetMs: number) =>
    TOTP.generate({ secret: Secret.fromBase32(enrol.body.secret as string), timestamp: Date.now() + offsetMs });
  const confirmed = await asBrowser(app, '/auth/mfa/confirm', cookie, {
    method: 'POST',
    body: { code: totp(-30_000) },
  });
  t.equal(confirmed.status, 200);
  const codes = confirmed.body.recovery_codes as string[];
  secrets.push(enrol.body.secret as string, ...codes);
  const challenged = await signIn();
  t.equal(challenged.body.object, 'mfa_challenge');
  t.equal(await countSignIns(), 1, 'the challenge is not a sign-in');
  const verify = (body: object) => asBrowser(app, '/auth/mfa/verify', null, { method: 'POST', body });
  t.equal((await verify({ challenge_token: challenged.body.challenge_token, code: totp(30_000) })).status, 200);
  await expectEntry(t, app, team.token, 'user.signed_in', { actor, metadata: { method: 'mfa_code' } });
  const again = await signIn();
  secrets.push(again.body.challenge_token as string);
  t.equal((await verify({ challenge_token: again.body.challenge_token, recovery_code: codes[0] })).status, 200);
  await expectEntry(t, app, team.token, 'user.signed_in', { actor, metadata: { method: 'recovery_code' } });
  t.equal(await countSignIns(), 3, 'one entry per sign-in');
});

t.test('member management refusals: the last owner stays, only owners touch owners', async (t) => {
  const members = (await call('GET', '/team/members')).body.data as Array<{ id: string; email: string }>;
  const owner = members.find((m) => m.email === ownerEmail)!;
  const last = errorShape(
    t,
    await asOwner('PATCH', `/team/members/${owner.id}`, { role: 'admin' }),
    422,
    'validation_error',
  );
  t.match(last.message, /at least one owner/);
  errorShape(t, await asOwner('DELETE', `/team/members/${owner.id}`), 422, 'validation_error');
  const adminCookie = await sessionInTeam(app, 'adam@audited.test', team.teamId, 'admin');
  const asAdmin = (method: string, path: string, body?: unknown) => asBrowser(app, path, adminCookie, { method, body });
  errorShape(t, await asAdmin('DELETE', `/team/members/${owner.id}`), 403, 'invalid_permission');
  errorShape(t, await asAdmin('PATCH', `/team/members/${owner.id}`, { role: 'member' }), 403, 'invalid_permission');
  const memberCookie = await sessionInTeam(app, 'mo@audited.test', team.teamId, 'member');
  const mo = (await call('GET', '/team/members')).body.data.find(
    (m: { email: string }) => m.email === 'mo@audited.test',
  );
  errorShape(t, await asAdmin('PATCH', `/team/members/${mo.id}`, { role: 'owner' }), 403, 'invalid_permission');
  errorShape(
    t,
    await asBrowser(app, `/team/members/${mo.id}`, memberCookie, { method: 'PATCH', body: { role: 'admin' } }),
    403,
    'invalid_permission',
  );
  errorShape(t, await asOwner('PATCH', `/team/members/${mo.id}`, { role: 'boss' }), 400, 'validation_error');
  errorShape(t, await asOwner('DELETE', '/team/members/0199a0a0-0000-7000-8000-000000000000'), 404, 'not_found');
  t.equal((await asAdmin('PATCH', `/team/members/${mo.id}`, { role: 'admin' })).status, 200, 'an admin makes admins');
});

t.test('team settings: rename, sender identity, a logo upload', async (t) => {
  await call('PATCH', '/team', { name: 'Audited Inc' });
  await expectEntry(t, app, team.token, 'team.updated', {
    resource: { type: 'team', id: team.teamId },
    metadata: { changed: ['name'] },
  });
  const upload = await call('POST', '/team/brand-kit/uploads', { content: png(8, 8).toString('base64') });
  t.equal(upload.status, 201);
  await expectEntry(t, app, team.token, 'team.brand_asset_uploaded', { metadata: { url: upload.body.url } });
});

t.test('suppressions by hand: added, removed, in batches', async (t) => {
  const added = await call('POST', '/suppressions', { email: 'nope@dest.test' });
  await expectEntry(t, app, team.token, 'suppression.added', {
    resource: { type: 'suppression', id: added.body.id },
    metadata: { email: 'nope@dest.test' },
  });
  await call('DELETE', `/suppressions/${added.body.id}`);
  await expectEntry(t, app, team.token, 'suppression.removed', { resource: { id: added.body.id } });
  await call('POST', '/suppressions/batch/add', { emails: ['a@dest.test', 'b@dest.test'] });
  await expectEntry(t, app, team.token, 'suppression.batch_added', { metadata: { count: 2 } });
  await call('POST', '/suppressions/batch/remove', { emails: ['a@dest.test', 'b@dest.test'] });
  await expectEntry(t, app, team.token, 'suppression.batch_removed', { metadata: { count: 2 } });
});

t.test('an import is one entry, however many rows', async (t) => {
  const rows = Array.from({ length: 25 }, (_, i) => `row${i}@dest.test`).join('\n');
  const imported = await uploadImport(app, team.token, `email\n${rows}\n`);
  t.equal(imported.status, 201);
  await expectEntry(t, app, team.token, 'contact_import.created', {
    resource: { type: 'contact_import', id: imported.body.id },
    metadata: { filename: 'contacts.csv' },
  });
  const all = await call('GET', '/audit-logs?resource_type=contact_import&limit=100');
  t.equal(all.body.data.length, 1, 'one entry for the import');
  t.notOk(JSON.stringify(all.body).includes('row1@dest.test'), 'no row content');
});

t.test('a broadcast sent and canceled; automations started and stopped', async (t) => {
  const domain = 'news-audited.test';
  await markedVerifiedDomain(app, team.teamId, domain);
  const postal = {
    line1: '1 Main St',
    line2: null,
    city: 'Springfield',
    state: 'IL',
    postal_code: '62701',
    country: 'US',
  };
  await call('PATCH', '/team', { sender_name: 'Audited', postal_address: postal });
  const segment = (
    await call('POST', '/segments', { name: 'All', filter: { all: [{ field: 'email', op: 'contains', value: '@' }] } })
  ).body.id;
  await call('POST', '/contacts', { email: 'reader@dest.test' });
  const html = '<p>The body of the November letter</p>';
  secrets.push('November letter');
  const broadcast = await call('POST', '/broadcasts', {
    name: 'November',
    audience_id: segment,
    from: `Audited <news@${domain}>`,
    subject: 'News',
    html,
  });
  t.equal(broadcast.status, 201);
  const at = new Date(Date.now() + 86_400_000).toISOString();
  const sent = await call('POST', `/broadcasts/${broadcast.body.id}/send`, { scheduled_at: at });
  t.equal(sent.status, 200, sent.text);
  await expectEntry(t, app, team.token, 'broadcast.sent', {
    resource: { type: 'broadcast', id: broadcast.body.id },
    metadata: { scheduled_at: at },
  });
  t.equal((await call('POST', `/broadcasts/${broadcast.body.id}/cancel`)).status, 200);
  await expectEntry(t, app, team.token, 'broadcast.canceled', { resource: { id: broadcast.body.id } });

  const automation = await call('POST', '/automations', {
    name: 'Welcome',
    status: 'enabled',
    steps: [
      { key: 'start', type: 'trigger', config: { event_name: 'svc:contact.created' } },
      { key: 'wait', type: 'delay', config: { duration: '1 day' } },
    ],
    connections: [{ from: 'start', to: 'wait' }],
  });
  t.equal(automation.status, 201, automation.text);
  const id = automation.body.id as string;
  await expectEntry(t, app, team.token, 'automation.started', {
    resource: { type: 'automation', id },
    metadata: { name: 'Welcome' },
  });
  await call('POST', `/automations/${id}/stop`);
  await expectEntry(t, app, team.token, 'automation.stopped', { resource: { id } });
  await call('PATCH', `/automations/${id}`, { status: 'enabled' });
  const restarted = await call('GET', `/audit-logs?action=automation.started&resource_id=${id}`);
  t.equal(restarted.body.data.length, 2, 'started twice');
});

t.test('an OAuth app acts under its own name; revoking its grant is recorded', async (t) => {
  const as = await discover(app);
  const client = await registerClient(as, { scope: 'team:write', client_name: 'Audit Bot' });
  const approval = await approve(app, as, client, team.teamId, ['team:write']);
  const tokens = await exchange(as, client, approval);
  secrets.push(tokens.access_token, approval.code);
  const renamed = await request(app.url, '/team', {
    method: 'PATCH',
    token: tokens.access_token,
    body: { ai_assist_enabled: false },
  });
  t.equal(renamed.status, 200);
  await expectEntry(t, app, team.token, 'team.updated', { actor: { type: 'oauth_app', id: client.client_id } });
  t.equal((await call('DELETE', `/oauth/grants/${approval.grantId}`)).status, 200);
  await expectEntry(t, app, team.token, 'oauth_grant.revoked', {
    resource: { type: 'oauth_grant', id: approval.grantId },
  });
});

t.test("an operator's changes land in the team's log under the operator's name", async (t) => {
  const operator = await createOperator(app);
  const asOperator = (method: string, path: string, body?: unknown) =>
    asBrowser(app, path, operator.cookie, { method, body });
  const actor = { type: 'operator', id: operator.userId, name: operator.email };
  t.equal((await asOperator('PATCH', `/admin/teams/${team.teamId}`, { tier: 2 })).status, 200);
  await expectEntry(t, app, team.token, 'team.operator_updated', { actor, metadata: { tier: 2, plan: null } });
  t.equal((await asOperator('POST', `/admin/teams/${team.teamId}/suspend`)).status, 200);
  t.equal((await asOperator('POST', `/admin/teams/${team.teamId}/resume`)).status, 200);
  await expectEntry(t, app, team.token, 'team.suspended', { actor, resource: { type: 'team', id: team.teamId } });
  await expectEntry(t, app, team.token, 'team.resumed', { actor });
  const created = await asOperator('POST', '/admin/teams', { name: 'Fresh', plan: 'free' });
  t.equal(created.status, 201);
  secrets.push(created.body.api_key.token);
  await expectEntry(t, app, created.body.api_key.token, 'team.created', {
    actor,
    resource: { type: 'team', id: created.body.team.id },
    metadata: { name: 'Fresh', plan: 'free' },
  });
});

t.test('no entry holds a key, token, secret, password or body', async (t) => {
  const rows = (await app.runtime.db.knex('audit_log_entries').select('*')) as Array<Record<string, unknown>>;
  t.ok(rows.length >= 30, `${rows.length} entries written`);
  const stored = JSON.stringify(rows);
  t.ok(secrets.length >= 8, 'secrets collected');
  for (const secret of secrets) t.notOk(stored.includes(secret), `not stored: ${secret.slice(0, 6)}…`);
  t.notOk(/svc_[A-Za-z0-9]{10}|whsec_|mailroom_session=/.test(stored), 'no credential-shaped value');
});
