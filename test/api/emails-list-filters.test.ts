import { Resend } from 'resend';
import t from 'tap';
import { v7 as uuidv7 } from 'uuid';
import { EmailRepository } from '../../core/sending/emails/email.repository.js';
import type { Email, EmailLastEvent } from '../../core/sending/emails/email.types.js';
import { newId } from '../../lib/ids.js';
import { sessionInTeam } from '../helpers/accounts.js';
import { errorShape, request } from '../helpers/http.js';
import { startTestApp } from '../helpers/test-app.js';

/**
 * GET /emails's dashboard filters (last_event, domain_id, created_after, created_before, q)
 * beside the SDK's limit/after/before, which keep working as they did.
 */
const app = await startTestApp();
t.teardown(() => app.close());
const team = await app.createTeam('Filters', 'unlimited');
const [domainA, domainB] = [newId(), newId()];
const HOUR = 3600_000;
const base = Date.now() - 48 * HOUR;

/** An email as acceptance writes it: its id made at its creation time (ids are time-ordered). */
function email(i: number, lastEvent: EmailLastEvent, domainId: string, to: string, subject: string): Email {
  const createdAt = new Date(base + i * HOUR);
  return {
    id: uuidv7({ msecs: createdAt.getTime() }),
    teamId: team.teamId,
    domainId,
    apiKeyId: null,
    fromHeader: 'Shop <shop@filters.test>',
    fromAddress: 'shop@filters.test',
    to: [to],
    cc: null,
    bcc: null,
    replyTo: null,
    suppressedRecipients: [],
    subject,
    tags: null,
    headers: null,
    templateId: null,
    templateVersionId: null,
    topicId: null,
    broadcastId: null,
    messageId: `<${i}@filters.test>`,
    lastEvent,
    scheduledAt: null,
    sizeBytes: 100,
    spool: { segment: 'seg-test', offset: 0, length: 100 },
    createdAt,
    updatedAt: createdAt,
  };
}
// 40 emails, one an hour: every 4th bounced, odd ones on domain B, a few recognisable ones.
const emails = Array.from({ length: 40 }, (_, i) =>
  email(
    i,
    i % 4 === 0 ? 'bounced' : 'delivered',
    i % 2 === 1 ? domainB : domainA,
    i === 7 ? 'Zoë <Zoe.Special@Example.org>' : `user${i}@example.net`,
    i === 21 ? 'Your 50% OFF_code' : `Order ${i}`,
  ),
);
await new EmailRepository(app.runtime.db.knex).insertMany(emails);
const newestFirst = [...emails].reverse();
const ids = (list: Email[]) => list.map((e) => e.id);
const list = (query: string, token = team.token) => request(app.url, `/emails?${query}`, { token });
const idsOf = (res: { body: { data: Array<{ id: string }> } }) => res.body.data.map((e) => e.id);

/** Every page of a filter, walked with `after` as the dashboard does. */
async function walk(query: string, limit = 7): Promise<string[]> {
  const seen: string[] = [];
  let after = '';
  for (;;) {
    const res = await list(`${query}&limit=${limit}${after ? `&after=${after}` : ''}`);
    if (res.status !== 200) throw new Error(res.text);
    seen.push(...idsOf(res));
    if (!res.body.has_more) return seen;
    after = seen.at(-1)!;
  }
}

t.test('last_event: only emails whose last event it is, newest first, every page', async (t) => {
  const bounced = newestFirst.filter((e) => e.lastEvent === 'bounced');
  const res = await list('last_event=bounced&limit=3');
  t.equal(res.status, 200);
  t.same(Object.keys(res.body), ['object', 'has_more', 'data']);
  t.same(idsOf(res), ids(bounced.slice(0, 3)));
  t.equal(res.body.has_more, true);
  t.same(await walk('last_event=bounced', 3), ids(bounced));
  t.same((await list('last_event=opened')).body.data, [], 'none opened');
});

t.test('domain_id, and filters together', async (t) => {
  t.same(await walk(`domain_id=${domainB}`), ids(newestFirst.filter((e) => e.domainId === domainB)));
  t.same(
    await walk(`domain_id=${domainA.toUpperCase()}&last_event=bounced`),
    ids(newestFirst.filter((e) => e.domainId === domainA && e.lastEvent === 'bounced')),
  );
  t.same((await list(`domain_id=${newId()}`)).body.data, [], 'a domain with no emails (or another team’s): empty');
});

t.test('created_after / created_before: strictly after, strictly before', async (t) => {
  const after = new Date(base + 30 * HOUR).toISOString();
  const before = new Date(base + 35 * HOUR).toISOString();
  t.same(
    await walk(`created_after=${after}`),
    ids(newestFirst.filter((e) => e.createdAt.getTime() > base + 30 * HOUR)),
  );
  t.same(
    await walk(`created_before=${before}`),
    ids(newestFirst.filter((e) => e.createdAt.getTime() < base + 35 * HOUR)),
  );
  t.same(
    await walk(`created_after=${after}&created_before=${before}&last_event=delivered`),
    ids(
      newestFirst.filter(
        (e) =>
          e.createdAt.getTime() > base + 30 * HOUR &&
          e.createdAt.getTime() < base + 35 * HOUR &&
          e.lastEvent === 'delivered',
      ),
    ),
  );
  const zoned = new Date(base + 30 * HOUR).toISOString().replace('Z', '+00:00');
  t.equal((await list(`created_after=${encodeURIComponent(zoned)}`)).status, 200, 'an offset instead of Z');
  const before2 = newestFirst.filter((e) => e.createdAt.getTime() < base + 35 * HOUR);
  const page = await list(`created_before=${before}&limit=2&before=${before2[3]!.id}`);
  t.same(idsOf(page), ids(before2.slice(1, 3)), 'before (the previous page) works with a filter');
});

t.test('q: a case-insensitive substring of a recipient (name included) or the subject', async (t) => {
  t.same(idsOf(await list('q=zoe.special@example')), [emails[7]!.id], 'address, other case');
  t.same(idsOf(await list('q=zo%C3%AB')), [emails[7]!.id], 'display name');
  t.same(idsOf(await list('q=50%25%20off_')), [emails[21]!.id], '% and _ are literal');
  t.same(idsOf(await list('q=order%203')), ids(newestFirst.filter((e) => /^Order 3/.test(e.subject))));
  t.same(
    idsOf(await list('q=order&last_event=bounced&limit=2')),
    ids(newestFirst.filter((e) => e.lastEvent === 'bounced').slice(0, 2)),
  );
});

t.test('the SDK’s emails.list({ limit, after, before }) is unchanged', async (t) => {
  const resend = new Resend(team.token, { baseUrl: `${app.url}/api/v1` } as never);
  const first = await resend.emails.list({ limit: 5 });
  t.equal(first.error, null);
  t.same(
    first.data!.data.map((e) => e.id),
    ids(newestFirst.slice(0, 5)),
  );
  const next = await resend.emails.list({ limit: 5, after: first.data!.data[4]!.id });
  t.same(
    next.data!.data.map((e) => e.id),
    ids(newestFirst.slice(5, 10)),
  );
  const back = await resend.emails.list({ limit: 5, before: next.data!.data[0]!.id });
  t.same(
    back.data!.data.map((e) => e.id),
    ids(newestFirst.slice(0, 5)),
  );
});

t.test('the dashboard’s session cookie filters too', async (t) => {
  const cookie = await sessionInTeam(app, 'fil@example.com', team.teamId, 'member');
  const res = await request(app.url, '/emails?last_event=bounced&limit=1', { headers: { cookie } });
  t.equal(res.status, 200);
  t.same(idsOf(res), [newestFirst.find((e) => e.lastEvent === 'bounced')!.id]);
});

t.test('invalid values: 422 invalid_parameter naming the parameter', async (t) => {
  const cases: Array<[string, string, RegExp]> = [
    ['last_event=lost', 'last_event', /must be one of bounced, canceled/],
    ['last_event=', 'last_event', /must be one of/],
    ['domain_id=example.com', 'domain_id', /must be a domain id/],
    ['created_after=2026-01-01', 'created_after', /ISO 8601 instant/],
    ['created_before=yesterday', 'created_before', /ISO 8601 instant/],
    ['created_after=2026-13-01T00:00:00Z', 'created_after', /ISO 8601 instant/],
    [
      'created_after=2026-02-01T00:00:00Z&created_before=2026-01-01T00:00:00Z',
      'created_before',
      /later than created_after/,
    ],
    ['created_after=2026-02-01T00:00:00Z&created_before=2026-02-01T00:00:00Z', 'created_before', /later/],
    ['q=', 'q', /must not be blank/],
    ['q=%20%20', 'q', /must not be blank/],
    [`q=${'x'.repeat(201)}`, 'q', /at most 200/],
    ['status=sent', '', /unknown/],
  ];
  for (const [query, path, message] of cases) {
    const refused = errorShape(t, await list(query), 422, 'invalid_parameter');
    t.equal(refused.errors?.[0]?.path, path, `${query}: path`);
    t.match(refused.errors?.[0]?.message, message, `${query}: message`);
  }
});
