import t from 'tap';
import { ContentAccess } from '../../core/platform/billing/content-access.js';
import { findPlan } from '../../core/platform/plans/plan.catalog.js';
import type { Team } from '../../core/platform/teams/team.types.js';
import { EmailAboveQuotaError } from '../../lib/errors.js';
import { movableClock } from '../helpers/clock.js';
import { errorShape, request } from '../helpers/http.js';
import { startTestApp } from '../helpers/test-app.js';
import { receiveMessage, receivingDomain } from '../helpers/received-mail.js';
import { markedVerifiedDomain } from '../helpers/verified-domain.js';

/**
 * 403 email_above_quota: over its plan's quota a team keeps its emails' metadata (GET /emails)
 * but not their content (GET /emails/{id}, attachments, share links and the share page), until
 * the plan changes or the period resets.
 */
const clock = movableClock();
const app = await startTestApp({ clock });
t.teardown(() => app.close());

t.test('over the daily cap after a plan change: content 403 until the plan changes or the day ends', async (t) => {
  const team = await app.createTeam('Quota', 'free');
  const domain = `quota-${Math.random().toString(36).slice(2, 6)}.test`;
  await markedVerifiedDomain(app, team.teamId, domain);
  const call = (method: string, path: string, body?: unknown) =>
    request(app.url, path, { method, token: team.token, body });
  const message = (i: number) => ({
    from: `q@${domain}`,
    to: 'r@example.net',
    subject: `Email ${i}`,
    text: `body ${i}`,
  });

  // Exactly at the free plan's daily cap of 100: sending stops, content stays.
  const batch = await call(
    'POST',
    '/emails/batch',
    Array.from({ length: 99 }, (_, i) => message(i)),
  );
  t.equal(batch.status, 200);
  const sent = await call('POST', '/emails', {
    ...message(99),
    attachments: [{ filename: 'a.txt', content: Buffer.from('attached').toString('base64') }],
  });
  t.equal(sent.status, 200);
  const id = sent.body.id as string;
  errorShape(t, await call('POST', '/emails', message(100)), 429, 'daily_quota_exceeded');
  t.equal((await call('GET', `/emails/${id}`)).status, 200, 'at the cap (not above): content available');
  const attachments = (await call('GET', `/emails/${id}/attachments`)).body.data;
  const attachmentId = attachments[0].id as string;
  const download = new URL(attachments[0].download_url as string);
  const earlierLink = (await call('POST', `/emails/${id}/share`)).body.url as string;
  // A received email: its content is content too (a second domain: briefly on a plan that allows two).
  await app.runtime.services.teams.setPlan(team.teamId, 'pro');
  const inbox = await receivingDomain(app, team.teamId);
  await app.runtime.services.teams.setPlan(team.teamId, 'free');
  const raw = `From: p@sender.test\r\nTo: in@${inbox}\r\nSubject: In\r\n\r\nreceived body\r\n`;
  const receivedId = (await receiveMessage(app, { from: 'p@sender.test', to: [`in@${inbox}`], raw })).received[0]!.id;
  const receivedRaw = new URL((await call('GET', `/emails/receiving/${receivedId}`)).body.raw.download_url as string);

  // A bigger plan for one more email, then back: 101 emails today, above the cap of 100.
  await app.runtime.services.teams.setPlan(team.teamId, 'pro');
  t.equal((await call('POST', '/emails', message(100))).status, 200);
  await app.runtime.services.teams.setPlan(team.teamId, 'free');
  app.runtime.services.lookupCache.invalidate();

  const list = await call('GET', '/emails?limit=5');
  t.equal(list.status, 200, 'metadata: the list answers');
  t.equal(list.body.data.length, 5);
  t.ok(list.body.data.every((e: Record<string, unknown>) => !('html' in e) && !('text' in e)));
  for (const [method, path] of [
    ['GET', `/emails/${id}`],
    ['GET', `/emails/${id}/attachments`],
    ['GET', `/emails/${id}/attachments/${attachmentId}`],
    ['POST', `/emails/${id}/share`],
    ['GET', `/emails/receiving/${receivedId}`],
    ['GET', `/emails/receiving/${receivedId}/attachments`],
  ] as const) {
    const body = errorShape(t, await call(method, path), 403, 'email_above_quota');
    t.match(body.message, /daily quota/, `${method} ${path} says which quota`);
  }
  const bytes = await request(download.origin, download.pathname + download.search);
  errorShape(t, bytes, 403, 'email_above_quota');
  errorShape(t, await request(app.url, receivedRaw.pathname + receivedRaw.search), 403, 'email_above_quota');
  t.equal((await call('GET', '/emails/receiving')).status, 200, 'the received list keeps its metadata');
  const page = await request(new URL(earlierLink).origin, new URL(earlierLink).pathname);
  t.equal(page.status, 403, 'a link made earlier shows no content while over quota');
  t.match(page.headers.get('content-type'), /^text\/html/);
  t.notMatch(page.text, 'body 99');
  errorShape(t, await call('GET', `/emails/00000000-0000-7000-8000-000000000000`), 404, 'not_found');
  t.equal((await call('POST', `/emails/${id}/cancel`)).status, 409, 'changes are not content: cancel answers as usual');

  // The plan changes: content is back at once.
  await app.runtime.services.teams.setPlan(team.teamId, 'pro');
  app.runtime.services.lookupCache.invalidate();
  t.equal((await call('GET', `/emails/${id}`)).body.text, 'body 99', 'after a plan change: content again');
  t.equal((await call('GET', `/emails/${id}/attachments`)).status, 200);
  t.equal((await call('GET', `/emails/receiving/${receivedId}`)).status, 200);
  t.equal((await request(app.url, receivedRaw.pathname + receivedRaw.search)).status, 200);
  t.equal((await request(download.origin, download.pathname + download.search)).status, 200);
  t.equal((await request(new URL(earlierLink).origin, new URL(earlierLink).pathname)).status, 200);

  // Back on free (above again), then the daily period resets at 00:00 UTC.
  await app.runtime.services.teams.setPlan(team.teamId, 'free');
  app.runtime.services.lookupCache.invalidate();
  errorShape(t, await call('GET', `/emails/${id}`), 403, 'email_above_quota');
  const now = clock.now();
  clock.advanceTo(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1, 0, 1));
  const next = await call('GET', `/emails/${id}`);
  t.equal(next.status, 200, 'after the daily reset: content again');
  t.equal(next.body.text, 'body 99');
  t.equal((await call('POST', `/emails/${id}/share`)).status, 200);
});

/** The monthly and marketing caps, counted by a stand-in for the email repository. */
t.test('which cap: daily, monthly (free plan only), marketing; above, never at', async (t) => {
  const counts = { transactional: 0, marketing: 0 };
  const access = new ContentAccess({ clock: { now: () => new Date() }, countEmails: async (_, __, m) => counts[m] });
  // Each call is a team whose row just changed: counted afresh, never a cached verdict.
  let changes = 0;
  const team = (code: string) => ({ id: 'team', plan: findPlan(code)!, updatedAt: new Date(++changes) }) as Team;
  t.equal(await access.exceededQuota(team('free')), null);
  counts.transactional = 100;
  t.equal(await access.exceededQuota(team('free')), null, 'at the daily cap');
  counts.transactional = 101;
  t.equal(await access.exceededQuota(team('free')), 'daily');
  t.equal(await access.exceededQuota(team('pro')), null, 'pro has no daily cap and no monthly cap');
  counts.transactional = 60_000;
  t.equal(await access.exceededQuota(team('pro')), null, 'paid plans bill overage: no monthly cap');
  const midMonth = new Date('2026-11-15T12:00:00Z');
  const monthly = new ContentAccess({
    clock: { now: () => midMonth },
    // Today's count under the daily cap; the month's above the free plan's 3,000.
    countEmails: async (_, since, meter) => (meter === 'marketing' ? 0 : since.getUTCDate() === 15 ? 50 : 3001),
  });
  t.equal(await monthly.exceededQuota(team('free')), 'monthly');
  t.equal(await monthly.exceededQuota(team('pro')), null);
  counts.transactional = 0;
  counts.marketing = 250_001;
  t.equal(await access.exceededQuota(team('pro')), 'marketing');
  const refusal = await access.assertAvailable(team('pro')).catch((err: unknown) => err);
  t.ok(refusal instanceof EmailAboveQuotaError);
  t.match((refusal as EmailAboveQuotaError).toBody(), {
    statusCode: 403,
    name: 'email_above_quota',
    message: /marketing quota.*first of the month/,
  });
});

t.test('a verdict of "available" is kept a minute for the same team, plan and day', async (t) => {
  const clock = movableClock();
  let counted = 0;
  let today = 0;
  const access = new ContentAccess({
    clock,
    countEmails: async (_, __, meter) => {
      counted++;
      return meter === 'transactional' ? today : 0;
    },
  });
  const team = { id: 'team', plan: findPlan('free')!, updatedAt: new Date(1) } as Team;
  t.equal(await access.exceededQuota(team), null);
  const first = counted;
  today = 101;
  t.equal(await access.exceededQuota(team), null, 'within the minute: not counted again');
  t.equal(counted, first);
  t.equal(await access.exceededQuota({ ...team, updatedAt: new Date(2) }), 'daily', 'the team row changed: counted');
  clock.advanceTo(clock.now().getTime() + 61_000);
  t.equal(await access.exceededQuota(team), 'daily', 'after the minute: counted');
  t.equal(await access.exceededQuota(team), 'daily', 'an over-quota verdict is never kept');
});
