import t from 'tap';
import { request } from '../helpers/http.js';
import { startMtaFixture } from '../helpers/mta-fixture.js';

/**
 * A broadcast end to end: contacts through the API, the fan-out, the MTA's bulk lane, a real
 * SMTP sink on loopback. Every contact's message arrives once with its own merge values and a
 * DKIM-signed one-click List-Unsubscribe that works when POSTed as a mailbox provider would.
 * MAILROOM_BROADCAST_E2E_CONTACTS sets the size (default 5,000).
 */
const CONTACTS = Number(process.env.MAILROOM_BROADCAST_E2E_CONTACTS ?? 5000);
// Slow (a few minutes on a busy machine): the SQLite pass runs it; the MariaDB pass covers the
// same fan-out with test/campaigns/broadcast-crash.test.ts and test/api/campaigns/.
if (process.env.MAILROOM_TEST_DATABASE_URL) {
  t.plan(0, 'the 5,000-contact end-to-end broadcast runs in the SQLite pass only');
  process.exit(0);
}
t.setTimeout(10 * 60_000);
const fx = await startMtaFixture({ sinkHosts: ['127.0.0.10'], mta: { concurrency: 50 } });
t.teardown(() => fx.close());
fx.dns.add(
  { type: 'MX', name: 'dest.test', exchange: 'mx1.dest.test', priority: 10 },
  { type: 'A', name: 'mx1.dest.test', address: '127.0.0.10' },
);
const [sink] = fx.sinks as [NonNullable<(typeof fx.sinks)[0]>];
const call = (method: string, path: string, body?: unknown) =>
  request(fx.app.url, path, { method, token: fx.token, body });

t.test(`a broadcast to ${CONTACTS} contacts: each message once, its own values, one-click works`, async (t) => {
  await call('PATCH', '/team', {
    sender_name: 'MTA',
    postal_address: { line1: '1 Main St', city: 'Springfield', postal_code: '12345', country: 'US' },
  });
  await call('POST', '/contact-properties', { key: 'city', type: 'string', fallback_value: 'Nowhere' });
  const started = Date.now();
  for (let i = 0; i < CONTACTS; i += 50) {
    const batch = Array.from({ length: Math.min(50, CONTACTS - i) }, (_, k) => i + k);
    const answers = await Promise.all(
      batch.map((n) =>
        call('POST', '/contacts', {
          email: `c${n}@dest.test`,
          first_name: `Name${n}`,
          ...(n % 2 === 0 ? { properties: { city: `City${n}` } } : {}),
        }),
      ),
    );
    if (answers.some((a) => a.status !== 201)) throw new Error(`contact create failed: ${answers[0]!.text}`);
  }
  t.comment(`${CONTACTS} contacts created in ${Date.now() - started} ms`);
  const segment = (
    await call('POST', '/segments', {
      name: 'All',
      filter: { all: [{ field: 'email', op: 'contains', value: '@dest.test' }] },
    })
  ).body.id;
  const created = await call('POST', '/broadcasts', {
    segment_id: segment,
    from: 'News <news@sender.test>',
    subject: 'Hello {{{FIRST_NAME}}}',
    html: '<p>Hi {{{FIRST_NAME}}} from {{{city}}}</p>',
    text: 'Hi {{{FIRST_NAME}}} from {{{city}}}',
    send: true,
  });
  t.equal(created.status, 201, created.text);
  const fanOutStarted = Date.now();
  const result = await fx.app.runtime.services.broadcastFanOut.runDue();
  t.equal(result.emails, CONTACTS, 'one email per contact');
  t.comment(`fan-out: ${CONTACTS} emails in ${Date.now() - fanOutStarted} ms`);
  await fx.waitFor(async () => sink.messages.length >= CONTACTS, `${CONTACTS} messages at the sink`, 300_000);
  await new Promise((resolve) => setTimeout(resolve, 500));
  t.equal(sink.messages.length, CONTACTS, 'nothing twice');
  const byRecipient = new Map(sink.messages.map((m) => [m.to[0]!, m.data.toString('utf8')]));
  t.equal(byRecipient.size, CONTACTS, 'every recipient exactly once');
  let personal = 0;
  for (let n = 0; n < CONTACTS; n++) {
    const raw = byRecipient.get(`c${n}@dest.test`) ?? '';
    const city = n % 2 === 0 ? `City${n}` : 'Nowhere';
    if (raw.includes(`Subject: Hello Name${n}\r\n`) && raw.includes(`Hi Name${n} from ${city}`)) personal++;
  }
  t.equal(personal, CONTACTS, 'each message with its own merge values (and the fallback where none)');
  const sample = byRecipient.get('c7@dest.test')!;
  t.match(sample, /List-Unsubscribe-Post: List-Unsubscribe=One-Click/);
  const signed = /DKIM-Signature:[\s\S]*?[;\s]h=([^;]+);/.exec(sample)?.[1]?.replace(/\s+/g, '').toLowerCase() ?? '';
  t.ok(signed.split(':').includes('list-unsubscribe'), 'List-Unsubscribe is DKIM-signed');
  t.ok(signed.split(':').includes('list-unsubscribe-post'), 'and List-Unsubscribe-Post');
  const url = /List-Unsubscribe:\s+<([^>]+)>/.exec(sample)![1]!;
  const oneClick = await request(fx.app.url, new URL(url).pathname, {
    method: 'POST',
    rawBody: 'List-Unsubscribe=One-Click',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    userAgent: null,
  });
  t.equal(oneClick.status, 200);
  t.equal((await call('GET', '/contacts/c7@dest.test')).body.unsubscribed, true, 'the one-click URL unsubscribed c7');
  t.equal((await call('GET', '/contacts/c8@dest.test')).body.unsubscribed, false, 'and no one else');
  const lanes = await fx.app.runtime.db.knex('deliveries').distinct('lane').pluck('lane');
  t.same(lanes, ['bulk'], 'the broadcast went on the bulk lane');
});
