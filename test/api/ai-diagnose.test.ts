import t from 'tap';
import type { Email } from '../../core/sending/emails/email.types.js';
import { DOMAIN_DELETED_REASON } from '../../core/ai/own-failure.js';
import { newId } from '../../lib/ids.js';
import { creditRecords, enableAi, startAiApp } from '../helpers/ai-fixture.js';
import { declared } from '../helpers/declared-schema.js';
import { claimDeliveries, emailWithHistory } from '../helpers/diagnose-story.js';
import { acceptEmail, sendingTeam } from '../helpers/email-activity.js';
import { errorShape, request } from '../helpers/http.js';

/**
 * POST /emails/{id}/diagnose: built from what the appliance knows (events, each attempt's reply
 * and transcript, the domain's DNS checks, egress rests, suppressions, the bounce classifier),
 * never an address or the content (the privacy test reads what the model was sent); a stored
 * diagnosis for the same state of the email at no cost; an email that failed on our own servers
 * answered `provider_failure` at no cost, without the model.
 */
const { app, double, close } = await startAiApp();
t.teardown(close);
const services = app.runtime.services;
const knex = app.runtime.db.knex;
const team = await sendingTeam(app, 'diagnose');
await enableAi(app, team.token);

const SENDER = 'hello@diagnose.test';
const DELIVERED = 'jane.doe@example.net';
const BOUNCED = 'mark.twain42@example.org';
const SUBJECT = 'Quarterly statement for account 4417';
const TEXT = 'Your balance is 1,234.56 and your code is ZEBRA-PLUM-77.';
const HTML = '<p>Dear Jane, here is your <b>private offer</b>: TANGERINE-ORCHID</p>';
const diagnose = (emailId: string, token = team.token) =>
  request(app.url, `/emails/${emailId}/diagnose`, { method: 'POST', token });

const claim = (email: Email) => claimDeliveries(app, email);
const email = await emailWithHistory(app, team, { DELIVERED, BOUNCED, SUBJECT, TEXT, HTML });
t.beforeEach(() => double.reset());

t.test('the diagnosis, and what the model was sent: no address, no subject, no body', async (t) => {
  const res = await diagnose(email.id);
  t.equal(res.status, 200, res.text);
  declared(t, 'POST', '/emails/:email_id/diagnose', res);
  t.same(Object.keys(res.body), [
    'object',
    'summary',
    'likely_causes',
    'next_steps',
    'cause',
    'created_at',
    'stored',
    'credits_remaining',
    'credits',
  ]);
  t.match(res.body, {
    object: 'ai_diagnosis',
    summary: 'Sample summary from the double',
    likely_causes: ['Sample likely_causes 1 from the double', 'Sample likely_causes 2 from the double'],
    next_steps: ['Sample next_steps 1 from the double', 'Sample next_steps 2 from the double'],
    cause: null,
    stored: false,
    credits: { limit: 1_000_000, used: 1, remaining: 999_999 },
    credits_remaining: 999_999,
  });
  t.equal(double.requests.length, 1);
  const sent = double.requests[0]!;
  t.equal(sent.body.response_format.json_schema.name, 'diagnosis');
  t.same(sent.body.response_format.json_schema.schema.required, ['summary', 'likely_causes', 'next_steps']);

  // Privacy: nothing the model received holds an address, the subject or any of the content.
  const raw = sent.raw;
  t.notMatch(raw, /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+/, 'no address');
  t.notMatch(raw, /[A-Za-z0-9._+-]+%40[A-Za-z0-9.-]+/i, 'no URL-encoded address');
  for (const secret of [
    SENDER,
    DELIVERED,
    BOUNCED,
    'jane.doe',
    'mark.twain42',
    'other.person',
    'bounces+4417',
    SUBJECT,
    'Quarterly statement',
    'ZEBRA-PLUM-77',
    '1,234.56',
    'TANGERINE-ORCHID',
    'private offer',
    'Dear Jane',
    'shop.example.com',
  ])
    t.notOk(raw.toLowerCase().includes(secret.toLowerCase()), `the model never sees "${secret}"`);

  // What it does see: placeholders, the replies, the transcripts, classification, DNS, rests, flags.
  const facts = JSON.parse((sent.body.messages[1].content as string).replace(/^Facts \(JSON\):\n/, ''));
  t.same(facts.email.recipients, ['<recipient-1>', '<recipient-2>']);
  t.equal(facts.email.sender, '<sender>');
  t.equal(facts.email.sender_domain, 'diagnose.test');
  const bounced = facts.deliveries.find((d: { recipient: string }) => d.recipient === '<recipient-2>');
  t.match(bounced, { recipient_domain: 'example.org', state: 'bounced', attempts: 2, on_suppression_list: true });
  const last = bounced.recent_attempts.at(-1);
  t.match(last.reply, {
    code: 550,
    enhanced_code: '5.1.1',
    text: /^<<recipient-2>>: Recipient address rejected: User <recipient-2> unknown/,
  });
  t.match(last.classification, { category: 'mailbox_unknown', action: 'bounce' });
  t.match(last.transcript, /MAIL FROM:<<address>>/);
  t.match(last.transcript, /RCPT TO:<<recipient-2>>/);
  t.match(bounced.recent_attempts[0].reply.text, /rcpt=<recipient-2>/, 'the URL-encoded address too');
  const delivered = facts.deliveries.find((d: { recipient: string }) => d.recipient === '<recipient-1>');
  t.match(delivered, { state: 'delivered', on_suppression_list: false });
  t.match(delivered.recent_attempts[0], { tls: true, transcript: /STARTTLS/ });
  t.same(
    facts.events.map((e: { type: string }) => e.type),
    ['email.sent', 'email.delivery_delayed', 'email.delivered', 'email.bounced', 'email.opened', 'email.clicked'],
  );
  t.match(
    facts.events.find((e: { type: string }) => e.type === 'email.bounced'),
    {
      recipients: ['<recipient-2>'],
      bounce: { type: 'Permanent', diagnostic_codes: [/^smtp; 550 5\.1\.1 <<recipient-2>>: /] },
    },
  );
  t.match(facts.egress_blocks, [
    { egress_ip: '127.0.0.1', destination: 'example.org', strikes: 3, reason: /zen\.spamhaus\.org; rcpt=<address>/ },
  ]);
  t.type(facts.sender_domain_dns, 'object', 'the domain’s DNS checks (failing here: no DNS in the test)');
  t.ok(Array.isArray(facts.sender_domain_dns.checks));
  t.equal((await creditRecords(app, team.teamId)).length, 1, 'one credit');
  t.equal(
    (await creditRecords(app, team.teamId))[0]!.source_id,
    ((await knex('ai_diagnoses').where({ email_id: email.id }).first()) as { id: string }).id,
    'the credit names the diagnosis it paid for',
  );
});

t.test('the same state again: the stored diagnosis, at no cost; a new event is a new state', async (t) => {
  const first = await knex('ai_diagnoses').where({ email_id: email.id }).first();
  const again = await diagnose(email.id);
  t.equal(again.status, 200);
  t.equal(again.body.stored, true);
  t.equal(again.body.summary, 'Sample summary from the double');
  t.equal(new Date(again.body.created_at).getTime(), new Date(first.created_at).getTime(), 'when it was made');
  t.same(again.body.credits, { limit: 1_000_000, used: 1, remaining: 999_999 }, 'nothing spent');
  t.equal(double.requests.length, 0, 'the model is not asked');
  t.equal((await creditRecords(app, team.teamId)).length, 1);

  await services.emailTransitions.record(knex, email, 'email.opened', {
    open: { ipAddress: '192.0.2.1', timestamp: new Date().toISOString(), userAgent: 'Mail' },
  });
  double.script({
    kind: 'json',
    value: { summary: 'Opened twice now.', likely_causes: [], next_steps: ['Nothing to do.'] },
  });
  const fresh = await diagnose(email.id);
  t.match(fresh.body, { stored: false, summary: 'Opened twice now.', likely_causes: [], credits: { used: 2 } });
  t.equal(double.requests.length, 1);
  t.equal((await knex('ai_diagnoses').where({ email_id: email.id })).length, 2, 'one stored per state');
});

t.test('a model that fails stores nothing and spends nothing', async (t) => {
  await services.emailTransitions.record(knex, email, 'email.opened', {
    open: { ipAddress: '192.0.2.1', timestamp: new Date().toISOString(), userAgent: 'Mail' },
  });
  const stored = (await knex('ai_diagnoses').where({ email_id: email.id })).length;
  const spent = (await creditRecords(app, team.teamId)).length;
  for (const reply of [
    { kind: 'json', value: { summary: 'x', likely_causes: 'not a list', next_steps: [] } },
    { kind: 'slow', ms: 3_000 },
    { kind: 'status', status: 500 },
  ] as const) {
    double.script(reply);
    errorShape(t, await diagnose(email.id), 503, 'service_unavailable');
  }
  t.equal((await knex('ai_diagnoses').where({ email_id: email.id })).length, stored);
  t.equal((await creditRecords(app, team.teamId)).length, spent);
});

t.test('an email that failed on our own mail servers: provider_failure, at no cost, without the model', async (t) => {
  const noEgress = await acceptEmail(app, team, ['carol.queue@example.net']);
  const [delivery] = (await claim(noEgress)).values();
  await services.deliveries.deferred(
    noEgress,
    [delivery!],
    {
      egressIp: null,
      mxHost: null,
      reply: 'no egress address of us-east-1 is available for example.net',
      transcript: '',
      durationMs: 0,
    },
    new Date(Date.now() + 600_000),
    'TransientCommunicationFailure',
  );
  const unreadable = await acceptEmail(app, team, ['dave.gone@example.net']);
  const [lost] = (await claim(unreadable)).values();
  await services.deliveries.failed(
    unreadable,
    [lost!],
    { egressIp: null, mxHost: null, reply: null, transcript: '', durationMs: 0 },
    'The stored message could not be read',
  );
  const spent = (await creditRecords(app, team.teamId)).length;
  for (const [failed, reason] of [
    [noEgress, /no egress address of us-east-1 is available/],
    [unreadable, /The stored message could not be read/],
  ] as const) {
    const res = await diagnose(failed.id);
    t.equal(res.status, 200);
    declared(t, 'POST', '/emails/:email_id/diagnose', res);
    t.match(res.body, { cause: 'provider_failure', stored: false, likely_causes: [reason] });
    t.match(res.body.summary, /failure on the mail servers of this service/);
    const again = await diagnose(failed.id);
    t.match(again.body, { cause: 'provider_failure', stored: true });
  }
  t.equal(double.requests.length, 0, 'the model was not asked');
  t.equal((await creditRecords(app, team.teamId)).length, spent, 'no credit spent');

  // The team's own doing (its sending domain deleted) is not a failure of ours: the model is asked.
  const orphan = await acceptEmail(app, team, ['erin.orphan@example.net']);
  const [orphaned] = (await claim(orphan)).values();
  await services.deliveries.failed(
    orphan,
    [orphaned!],
    { egressIp: null, mxHost: null, reply: null, transcript: '', durationMs: 0 },
    DOMAIN_DELETED_REASON,
  );
  const res = await diagnose(orphan.id);
  t.match(res.body, { cause: null, stored: false });
  t.equal(double.requests.length, 1);
  t.equal((await creditRecords(app, team.teamId)).length, spent + 1);
});

t.test('stored diagnoses answer even when the credits are spent; a new state does not', async (t) => {
  const spentAll = await sendingTeam(app, 'spent');
  await enableAi(app, spentAll.token);
  const mine = await acceptEmail(app, spentAll, ['fay.reader@example.net']);
  t.equal((await diagnose(mine.id, spentAll.token)).status, 200);
  await knex.transaction((trx) =>
    services.usage.record(trx, { teamId: spentAll.teamId, category: 'ai_credits', quantity: 999_999, at: new Date() }),
  );
  const stored = await diagnose(mine.id, spentAll.token);
  t.match(stored.body, {
    stored: true,
    credits: { limit: 1_000_000, used: 1_000_000, remaining: 0 },
    credits_remaining: 0,
  });
  await services.emailTransitions.record(knex, mine, 'email.opened', {
    open: { ipAddress: '192.0.2.1', timestamp: new Date().toISOString(), userAgent: 'Mail' },
  });
  errorShape(t, await diagnose(mine.id, spentAll.token), 422, 'validation_error');
});

t.test('errors: another team’s email, an unknown id, a malformed id', async (t) => {
  const other = await sendingTeam(app, 'other');
  await enableAi(app, other.token);
  errorShape(t, await diagnose(email.id, other.token), 404, 'not_found');
  errorShape(t, await diagnose(newId(), other.token), 404, 'not_found');
  const malformed = errorShape(t, await diagnose('12'), 422, 'invalid_parameter');
  t.match(malformed.errors, [{ path: 'email_id' }]);
  errorShape(t, await request(app.url, `/emails/${email.id}/diagnose`, { method: 'POST' }), 401, 'missing_api_key');
  const sending = await services.apiKeys.create(team.teamId, { name: 'sender', permission: 'sending_access' });
  errorShape(t, await diagnose(email.id, sending.token), 401, 'restricted_api_key');
  t.equal(double.requests.length, 0);
});
