import { Resend } from 'resend';
import t from 'tap';
import { METRICS } from '../../core/events/metrics/metric.types.js';
import { newId } from '../../lib/ids.js';
import { errorShape, request } from '../helpers/http.js';
import { eventAt, metricEmail } from '../helpers/metric-events.js';
import { startTestApp } from '../helpers/test-app.js';

/** GET /emails/metrics over HTTP: the response shape, every parameter, every refusal. */
const app = await startTestApp();
t.teardown(() => app.close());
const { runtime } = app;
const team = await app.createTeam('Metrics');
const other = await app.createTeam('Other');
const domainId = newId();
const email = await metricEmail(runtime, team.teamId, domainId, ['r@x.test']);
// Two days ago at 20:00 UTC: the next day already in Asia/Kolkata (01:30 IST).
const day = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10);
await eventAt(runtime, `${day}T17:00:00Z`, email, 'email.sent');
await eventAt(runtime, `${day}T17:00:30Z`, email, 'email.delivered');
await eventAt(runtime, `${day}T20:00:00Z`, email, 'email.opened');
await runtime.services.metrics.rollUp({ until: new Date(Date.now() + 60_000) });
const get = (query: string, token = team.token, base = '') =>
  request(app.url, `${base}/emails/metrics${query}`, { token });

t.test('no dimension: totals of every metric over the last six days, no data', async (t) => {
  const before = Math.floor(Date.now() / 60_000) * 60_000;
  const res = await get('');
  t.equal(res.status, 200);
  t.same(Object.keys(res.body), [
    'object',
    'start_date',
    'end_date',
    'metrics',
    'dimensions',
    'granularity',
    'totals',
    'data_as_of',
  ]);
  t.equal(res.body.object, 'metrics');
  t.same(res.body.metrics, METRICS);
  t.same(res.body.dimensions, []);
  t.equal(res.body.granularity, 'daily');
  const end = Date.parse(res.body.end_date);
  t.ok(end >= before && end % 60_000 === 0, 'end_date: now, down to the last completed minute');
  t.equal(end - Date.parse(res.body.start_date), 6 * 86_400_000, 'start_date: six days before');
  t.same(Object.keys(res.body.totals), METRICS);
  t.match(res.body.totals, {
    sent: 1,
    delivered: 1,
    opened: 1,
    unique_opened: 1,
    attempted: 1,
    delivery_rate: 1,
    open_rate: 1,
    bounced: 0,
    bounce_rate: 0,
    received: 0,
  });
  t.match(res.body.data_as_of, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:00\.000Z$/);
});

t.test('GET /emails/metrics is not read as GET /emails/{id}, on both bases', async (t) => {
  t.equal((await get('', team.token, '/api/v1')).status, 200);
  const byId = await request(app.url, `/emails/${email.id}`, { token: team.token });
  t.equal(byId.body.id, email.id, 'the id route still answers for ids');
});

t.test('metrics comma-separated and repeated; dimensions and data rows', async (t) => {
  const res = await get('?metrics=sent&metrics=delivered,opened&metrics=sent&dimensions=period,domain');
  t.same(res.body.metrics, ['sent', 'delivered', 'opened']);
  t.same(res.body.totals, { sent: 1, delivered: 1, opened: 1 });
  t.same(res.body.dimensions, ['period', 'domain']);
  t.same(
    res.body.data,
    [{ period: `${day}T00:00:00.000Z`, domain_id: domainId, domain_name: null, sent: 1, delivered: 1, opened: 1 }],
    'one day, one domain; rows carry only the requested metrics',
  );
});

t.test('timezone moves the open to the next day', async (t) => {
  const query = `?metrics=delivered,opened&dimensions=period&start_date=${day}&end_date=${day}`;
  const utc = await get(query);
  t.same(utc.body.data, [{ period: `${day}T00:00:00.000Z`, delivered: 1, opened: 1 }]);
  const ist = await get(`${query}&timezone=Asia/Kolkata`);
  t.equal(ist.body.start_date, new Date(Date.parse(`${day}T00:00:00Z`) - 330 * 60_000).toISOString(), 'the day in IST');
  t.same(
    ist.body.data,
    [{ period: ist.body.start_date, delivered: 1, opened: 0 }],
    'the open happened at 01:30 IST the next day',
  );
});

t.test('email and broadcast dimensions; another team sees nothing', async (t) => {
  const byEmail = await get(`?metrics=sent&dimensions=email&email_id=${email.id}`);
  t.same(byEmail.body.data, [{ email_id: email.id, sent: 1 }]);
  const byBroadcast = await get('?metrics=sent&dimensions=broadcast');
  t.same(byBroadcast.body.data, [{ broadcast_id: null, broadcast_name: null, sent: 1 }]);
  const theirs = await get(`?metrics=sent&email_id=${email.id}`, other.token);
  t.same(theirs.body.totals, { sent: 0 });
});

t.test('the resend SDK reads it', async (t) => {
  const resend = new Resend(team.token, { baseUrl: `${app.url}/api/v1` });
  const { data, error } = await resend.emails.metrics({
    metrics: ['sent', 'delivery_rate'],
    dimensions: ['domain'],
    domainId: [domainId],
    timezone: 'UTC',
  });
  t.equal(error, null);
  t.same(data?.totals, { sent: 1, delivery_rate: 1 });
  t.same(data?.data, [{ domain_id: domainId, domain_name: null, sent: 1, delivery_rate: 1 }]);
});

t.test('credentials: full_access only', async (t) => {
  const sending = await runtime.services.apiKeys.create(team.teamId, { name: 'sender', permission: 'sending_access' });
  errorShape(t, await get('', sending.token), 401, 'restricted_api_key');
  errorShape(t, await request(app.url, '/emails/metrics'), 401, 'missing_api_key');
});

const ids = (n: number) => Array.from({ length: n }, () => newId()).join(',');
const refusals: Array<[string, string, string, RegExp]> = [
  ['unknown metric', '?metrics=sent,unsubscribed', 'metrics', /unknown metric: unsubscribed/],
  ['unknown dimension', '?dimensions=period,country', 'dimensions', /unknown dimension: country/],
  ['email and broadcast dimensions', '?dimensions=email,broadcast', 'dimensions', /cannot be combined/],
  [
    'email dimension with broadcast_id',
    `?dimensions=email&broadcast_id=${newId()}`,
    'dimensions',
    /cannot be combined/,
  ],
  ['email_id with broadcast_id', `?email_id=${newId()}&broadcast_id=${newId()}`, 'dimensions', /cannot be combined/],
  ['bad granularity', '?granularity=yearly', 'granularity', /hourly, daily, weekly, monthly/],
  ['more than 100 domain ids', `?domain_id=${ids(101)}`, 'domain_id', /at most 100/],
  ['more than 100 email ids, repeated', `?email_id=${ids(60)}&email_id=${ids(41)}`, 'email_id', /at most 100/],
  ['malformed id', '?email_id=not-an-id', 'email_id', /UUID/],
  ['malformed date', '?start_date=2026-02-30', 'start_date', /ISO 8601/],
  ['start after end', '?start_date=2026-11-10&end_date=2026-11-01', 'start_date', /after end_date/],
  [
    'start in the future',
    `?start_date=${new Date(Date.now() + 86_400_000).toISOString()}`,
    'start_date',
    /after end_date/,
  ],
  ['invalid timezone', '?timezone=Mars/Olympus', 'timezone', /IANA/],
  ['a UTC offset is not a zone name', '?timezone=%2B05:30', 'timezone', /IANA/],
  ['repeated single parameter', '?timezone=UTC&timezone=Europe/Paris', 'timezone', /once/],
  ['unknown parameter', '?domain=abc', '', /unknown field/],
];
for (const [what, query, path, message] of refusals) {
  t.test(`422 invalid_parameter: ${what}`, async (t) => {
    const body = errorShape(t, await get(query), 422, 'invalid_parameter');
    t.equal(body.errors?.[0]?.path, path);
    t.match(body.errors?.[0]?.message, message);
  });
}

t.test('a start_date older than the plan keeps (30 days on free) is moved up to it', async (t) => {
  const before = Math.floor((Date.now() - 30 * 86_400_000) / 60_000) * 60_000;
  const res = await get('?start_date=2020-01-01&metrics=sent');
  const start = Date.parse(res.body.start_date);
  t.ok(start >= before && start <= before + 120_000, res.body.start_date);
  t.same(res.body.totals, { sent: 1 });
});

t.test('at most 100 ids is fine; repeated ids count once', async (t) => {
  t.equal((await get(`?domain_id=${ids(100)}`)).status, 200);
  t.equal((await get(`?email_id=${email.id}&email_id=${email.id.toUpperCase()}&metrics=sent`)).body.totals.sent, 1);
});
