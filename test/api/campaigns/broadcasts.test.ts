import { Resend } from 'resend';
import t from 'tap';
import { errorShape, request } from '../../helpers/http.js';
import { startTestApp } from '../../helpers/test-app.js';
import { markedVerifiedDomain } from '../../helpers/verified-domain.js';
import { findPlan } from '../../../core/platform/plans/plan.catalog.js';
import { EmailRepository } from '../../../core/sending/emails/email.repository.js';

const app = await startTestApp();
t.teardown(() => app.close());

type Team = { teamId: string; token: string };
const call = (team: Team, method: string, path: string, body?: unknown) =>
  request(app.url, path, { method, token: team.token, body });
const postal = {
  line1: '1 Main Street',
  line2: null,
  city: 'Springfield',
  state: 'IL',
  postal_code: '62701',
  country: 'US',
};

/** A team ready to send: a verified domain, a postal address, a segment of three contacts. */
async function readyTeam(name = 'Acme') {
  const team = await app.createTeam(name, 'pro');
  const domain = `news-${Math.random().toString(36).slice(2, 8)}.test`;
  await markedVerifiedDomain(app, team.teamId, domain);
  await call(team, 'PATCH', '/team', { sender_name: name, postal_address: postal });
  await call(team, 'POST', '/contact-properties', { key: 'plan', type: 'string', fallback_value: 'free' });
  const segment = (
    await call(team, 'POST', '/segments', {
      name: 'Everyone',
      filter: { all: [{ field: 'email', op: 'contains', value: '@' }] },
    })
  ).body.id as string;
  const contacts: Record<string, string> = {};
  for (const [email, body] of [
    ['ada@dest.test', { first_name: 'Ada', properties: { plan: 'pro <b>&' } }],
    ['bob@dest.test', {}],
    ['cy@dest.test', { first_name: 'Cy', unsubscribed: true }],
  ] as const)
    contacts[email] = (await call(team, 'POST', '/contacts', { email, ...body })).body.id;
  return { team, domain, segment, contacts };
}

t.test('create a draft, read, list with search and status, update, duplicate, delete', async (t) => {
  const { team, domain, segment } = await readyTeam();
  const created = await call(team, 'POST', '/broadcasts', {
    name: 'November news',
    audience_id: segment,
    from: `Acme <news@${domain}>`,
    subject: 'Hello {{{FIRST_NAME|there}}}',
    html: '<p>Hi</p>',
  });
  t.equal(created.status, 201);
  t.same(created.body, { object: 'broadcast', id: created.body.id });
  const id = created.body.id;
  const got = await call(team, 'GET', `/broadcasts/${id}`);
  t.match(got.body, {
    object: 'broadcast',
    id,
    name: 'November news',
    segment_id: segment,
    audience_id: segment,
    status: 'draft',
    from: `Acme <news@${domain}>`,
    subject: 'Hello {{{FIRST_NAME|there}}}',
    html: '<p>Hi</p>',
    text: null,
    reply_to: null,
  });
  t.notOk('scheduled_at' in got.body, 'absent until set');
  await call(team, 'PATCH', `/broadcasts/${id}`, { subject: 'Better', reply_to: 'reply@example.com' });
  t.match((await call(team, 'GET', `/broadcasts/${id}`)).body, { subject: 'Better', reply_to: ['reply@example.com'] });
  const copy = await call(team, 'POST', `/broadcasts/${id}/duplicate`);
  t.equal(copy.status, 201);
  t.match((await call(team, 'GET', `/broadcasts/${copy.body.id}`)).body, {
    name: 'November news (copy)',
    status: 'draft',
  });
  const list = await call(team, 'GET', '/broadcasts?search=copy');
  t.same(
    list.body.data.map((b: { id: string }) => b.id),
    [copy.body.id],
  );
  t.equal((await call(team, 'GET', '/broadcasts?status=draft')).body.data.length, 2);
  t.equal((await call(team, 'GET', '/broadcasts?status=sent')).body.data.length, 0);
  errorShape(t, await call(team, 'GET', '/broadcasts?status=lost'), 422, 'invalid_parameter');
  const removed = await call(team, 'DELETE', `/broadcasts/${copy.body.id}`);
  t.same(removed.body, { object: 'broadcast', id: copy.body.id, deleted: true });
  errorShape(t, await call(team, 'GET', `/broadcasts/${copy.body.id}`), 404, 'not_found');
  errorShape(t, await call(team, 'POST', '/broadcasts', { from: `a@${domain}` }), 422, 'missing_required_field');
  errorShape(
    t,
    await call(team, 'POST', '/broadcasts', { from: `a@${domain}`, subject: 's', scheduled_at: 'in 1 hour' }),
    422,
    'invalid_parameter',
  );
});

t.test('the gate, in order, on the checklist and on send; a refusal creates nothing', async (t) => {
  const team = await app.createTeam('Gate', 'pro');
  const draft = async (body: Record<string, unknown>) =>
    call(team, 'POST', '/broadcasts', { from: 'News <news@unverified.test>', subject: 'Hi', ...body });
  const refused = await draft({ html: '<p>x</p>', send: true });
  errorShape(t, refused, 422, 'validation_error');
  t.match(refused.body.message, /not verified/);
  t.equal((await call(team, 'GET', '/broadcasts')).body.data.length, 0, 'nothing created');
  const id = (await draft({})).body.id;
  const checklist = await call(team, 'GET', `/broadcasts/${id}/checklist`);
  t.equal(checklist.status, 200);
  t.equal(checklist.body.ready, false);
  t.same(
    checklist.body.checks.map((c: { check: string; passed: boolean }) => [c.check, c.passed]),
    [
      ['verified_domain', false],
      ['postal_address', false],
      ['segment', false],
      ['marketing_enabled', true],
      ['team_standing', true],
      ['content', false],
    ],
  );
  const domain = `gate-${Math.random().toString(36).slice(2, 8)}.test`;
  await markedVerifiedDomain(app, team.teamId, domain);
  await call(team, 'PATCH', `/broadcasts/${id}`, { from: `News <news@${domain}>` });
  const noAddress = await call(team, 'POST', `/broadcasts/${id}/send`, {});
  errorShape(t, noAddress, 422, 'validation_error');
  t.match(noAddress.body.message, /postal address/);
  await call(team, 'PATCH', '/team', { sender_name: 'Gate', postal_address: postal });
  const noSegment = await call(team, 'POST', `/broadcasts/${id}/send`, {});
  errorShape(t, noSegment, 422, 'validation_error');
  t.match(noSegment.body.errors, [{ path: 'segment_id' }]);
  const segment = (await call(team, 'POST', '/segments', { name: 'S', filter: null })).body.id;
  await call(team, 'PATCH', `/broadcasts/${id}`, { segment_id: segment });
  await app.runtime.services.settings.set('marketing.enabled', 'false');
  try {
    const paused = await call(team, 'POST', `/broadcasts/${id}/send`, {});
    errorShape(t, paused, 403, 'validation_error');
    t.match(paused.body.message, /paused/);
  } finally {
    await app.runtime.services.settings.set('marketing.enabled', 'true');
  }
  const noBody = await call(team, 'POST', `/broadcasts/${id}/send`, {});
  errorShape(t, noBody, 422, 'validation_error');
  t.match(noBody.body.errors, [{ path: 'html' }]);
  t.equal((await call(team, 'GET', `/broadcasts/${id}`)).body.status, 'draft', 'still a draft');
  await call(team, 'PATCH', `/broadcasts/${id}`, { text: 'Hello' });
  const ready = await call(team, 'GET', `/broadcasts/${id}/checklist`);
  t.equal(ready.body.ready, true);
  const sent = await call(team, 'POST', `/broadcasts/${id}/send`, { scheduled_at: 'in 2 hours' });
  t.same(sent.body, { object: 'broadcast', id });
  const scheduled = (await call(team, 'GET', `/broadcasts/${id}`)).body;
  t.equal(scheduled.status, 'scheduled');
  t.ok(scheduled.scheduled_at, 'scheduled_at set');
  errorShape(t, await call(team, 'PATCH', `/broadcasts/${id}`, { subject: 'x' }), 409, 'resource_locked');
  errorShape(t, await call(team, 'DELETE', `/broadcasts/${id}`), 409, 'resource_locked');
  errorShape(t, await call(team, 'POST', `/broadcasts/${id}/send`, {}), 409, 'resource_locked');
  t.same((await call(team, 'POST', `/broadcasts/${id}/cancel`)).body, { object: 'broadcast', id });
  t.equal((await call(team, 'GET', `/broadcasts/${id}`)).body.status, 'canceled');
  errorShape(t, await call(team, 'POST', `/broadcasts/${id}/cancel`), 409, 'resource_locked');
});

t.test('fan-out: one email per subscribed member, merge values, footer, one-click headers; sent', async (t) => {
  const { team, domain, segment, contacts } = await readyTeam('Fan');
  await app.runtime.services.suppressions.add(team.teamId, 'bob@dest.test');
  const { id } = (
    await call(team, 'POST', '/broadcasts', {
      name: 'Fan-out',
      segment_id: segment,
      from: `Fan <news@${domain}>`,
      subject: 'Hello {{{FIRST_NAME|friend}}}',
      html: '<p>Hi {{{FIRST_NAME|friend}}} on {{{plan}}}</p>',
      text: 'Hi {{{FIRST_NAME|friend}}} on {{{PLAN}}}',
      send: true,
    })
  ).body;
  t.equal((await call(team, 'GET', `/broadcasts/${id}`)).body.status, 'queued');
  const result = await app.runtime.services.broadcastFanOut.runDue();
  t.equal(result.emails, 1, 'one email: Bob is suppressed, Cy unsubscribed');
  const after = (await call(team, 'GET', `/broadcasts/${id}`)).body;
  t.equal(after.status, 'sent');
  t.ok(after.sent_at, 'sent_at set');
  const { knex } = app.runtime.db;
  const recipients = await knex('broadcast_recipients').where({ broadcast_id: id }).orderBy('email');
  t.same(
    recipients.map((r) => [r.email, r.excluded]),
    [
      ['ada@dest.test', null],
      ['bob@dest.test', 'suppressed'],
      ['cy@dest.test', 'unsubscribed'],
    ],
  );
  const emailId = recipients[0].email_id;
  const email = await call(team, 'GET', `/emails/${emailId}`);
  t.equal(email.body.subject, 'Hello Ada');
  t.match(email.body.html, /Hi Ada on pro &lt;b&gt;&amp;</, 'values HTML-escaped in html');
  t.match(email.body.html, /1 Main Street/, 'footer with the postal address');
  t.match(email.body.text, /Hi Ada on pro <b>&\n/, 'raw in text');
  t.match(email.body.text, /Unsubscribe: http/);
  const row = await knex('emails').where({ id: emailId }).first();
  t.equal(row.broadcast_id, id, 'the email names its broadcast');
  const mime = (await app.runtime.services.emails.mime(
    (await app.runtime.services.emails.get(team.teamId, emailId)).email,
  ))!.toString();
  // The header may be folded onto a second line.
  const unsubscribe = /List-Unsubscribe:\s+<([^>]+)>/.exec(mime)?.[1];
  t.ok(unsubscribe, 'List-Unsubscribe with the one-click URL');
  t.match(mime, /List-Unsubscribe-Post: List-Unsubscribe=One-Click/);
  // A mailbox provider's one-click POST to the header's URL.
  const oneClick = await request(app.url, new URL(unsubscribe!).pathname, {
    method: 'POST',
    rawBody: 'List-Unsubscribe=One-Click',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    userAgent: null,
  });
  t.equal(oneClick.status, 200);
  t.equal((await call(team, 'GET', `/contacts/${contacts['ada@dest.test']}`)).body.unsubscribed, true);
  t.equal((await app.runtime.services.broadcastFanOut.runDue()).emails, 0, 'nothing sent twice');
});

t.test('the marketing meter: broadcast mail never counts as transactional; past the allowance 429', async (t) => {
  const { team, domain, segment } = await readyTeam('Meter');
  await app.runtime.db.knex('teams').where({ id: team.teamId }).update({ plan_code: 'scale' });
  // The scale plan's allowance, lowered in this process for the test (no other test here uses scale).
  const limits = findPlan('scale')!.limits as { marketing_emails_included: number };
  const before = limits.marketing_emails_included;
  limits.marketing_emails_included = 3;
  t.teardown(() => void (limits.marketing_emails_included = before));
  const body = { segment_id: segment, from: `M <m@${domain}>`, subject: 'S', text: 'T', send: true };
  t.equal((await call(team, 'POST', '/broadcasts', body)).status, 201, 'two subscribed members fit in 3');
  await app.runtime.services.broadcastFanOut.runDue();
  t.equal(await app.runtime.services.marketingAllowance.usedThisMonth(team.teamId), 2, 'two emails metered');
  const emails = new EmailRepository(app.runtime.db.knex);
  t.equal(await emails.countSince(team.teamId, new Date(0)), 0, 'none on the transactional meter');
  const over = await call(team, 'POST', '/broadcasts', body);
  errorShape(t, over, 429, 'marketing_quota_exceeded');
  t.match(over.body.message, /1 left/);
  t.equal((await call(team, 'GET', '/broadcasts?status=queued')).body.data.length, 0, 'nothing created');
});

t.test('cancel while sending stops at the next page; pause holds, resume continues', async (t) => {
  const { team, domain, segment } = await readyTeam('Pages');
  for (let i = 0; i < 5; i++) await call(team, 'POST', '/contacts', { email: `extra${i}@dest.test` });
  const fanOut = app.runtime.services.broadcastFanOut;
  const body = { segment_id: segment, from: `P <p@${domain}>`, subject: 'S', text: 'T', send: true };
  const first = (await call(team, 'POST', '/broadcasts', body)).body.id;
  // Pages of two: one page, then cancel; the next page is not sent.
  const original = (fanOut as unknown as { deps: { pageSize: number } }).deps;
  const pageSize = original.pageSize;
  original.pageSize = 2;
  t.teardown(() => void (original.pageSize = pageSize));
  await app.runtime.services.settings.set('marketing.enabled', 'false');
  t.equal(await fanOut.fanOut(first), 0, 'paused: nothing sent');
  t.equal((await call(team, 'GET', `/broadcasts/${first}`)).body.status, 'queued', 'held');
  await app.runtime.services.settings.set('marketing.enabled', 'true');
  const { knex } = app.runtime.db;
  t.equal(await fanOut.fanOut(first, { pages: 1 }), 2, 'one page of two');
  t.equal((await call(team, 'GET', `/broadcasts/${first}`)).body.status, 'sending');
  await call(team, 'POST', `/broadcasts/${first}/cancel`);
  t.equal(await fanOut.fanOut(first), 0, 'canceled while sending: no further page');
  t.equal((await knex('broadcast_recipients').where({ broadcast_id: first })).length, 2, 'the first page stands');
  t.equal((await call(team, 'GET', `/broadcasts/${first}`)).body.status, 'canceled');
  const second = (await call(team, 'POST', '/broadcasts', body)).body.id;
  const created = await fanOut.fanOut(second);
  t.equal(created, 7, 'every subscribed member, two per page');
  const rows = await knex('broadcast_recipients').where({ broadcast_id: second });
  t.equal(rows.length, 8, 'and the unsubscribed one recorded as excluded');
  t.equal(new Set(rows.map((r) => r.contact_id)).size, 8, 'each contact once');
});

t.test('the resend SDK: broadcasts create, get, list, update, send, cancel, duplicate, remove', async (t) => {
  const { team, domain, segment } = await readyTeam('Sdk');
  const resend = new Resend(team.token, { baseUrl: `${app.url}/api/v1` } as never);
  const created = await resend.broadcasts.create({
    name: 'SDK',
    segmentId: segment,
    from: `Sdk <news@${domain}>`,
    subject: 'Hi',
    html: '<p>Hi {{{FIRST_NAME}}}</p>',
  });
  t.equal(created.error, null);
  const id = created.data!.id;
  t.match((await resend.broadcasts.get(id)).data, { id, name: 'SDK', segment_id: segment, status: 'draft' });
  t.equal((await resend.broadcasts.update(id, { subject: 'Hello' })).error, null);
  t.equal((await resend.broadcasts.get(id)).data!.subject, 'Hello');
  t.same(
    (await resend.broadcasts.list()).data!.data.map((b) => b.id),
    [id],
  );
  const copy = await resend.broadcasts.duplicate(id);
  t.equal(copy.error, null);
  t.match((await resend.broadcasts.remove(copy.data!.id)).data, { id: copy.data!.id, deleted: true });
  t.equal((await resend.broadcasts.send(id, { scheduledAt: 'in 1 day' })).error, null);
  t.equal((await resend.broadcasts.get(id)).data!.status, 'scheduled');
  t.equal((await resend.broadcasts.cancel(id)).error, null);
  t.equal((await resend.broadcasts.get(id)).data!.status, 'canceled');
  t.match((await resend.broadcasts.remove(id)).error, { name: 'resource_locked', statusCode: 409 });
});
