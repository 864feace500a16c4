import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Resend } from 'resend';
import t, { type Test } from 'tap';
import { startWebhookWorker } from '../../scheduler/workers/webhook-delivery.worker.js';
import { TestDnsServer } from '../helpers/dns-server.js';
import { request } from '../helpers/http.js';
import { customerWrites } from '../helpers/inbox-fixture.js';
import { receiveMessage, receivingDomain } from '../helpers/received-mail.js';
import { startTestApp } from '../helpers/test-app.js';
import { addVerifiedDomain, markedVerifiedDomain } from '../helpers/verified-domain.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { approve, discover, exchange, registerClient } from './oauth/oauth-fixture.js';

/**
 * Issue 38, acceptance item 1: every public method of the `resend` SDK, found at run time as the
 * SDK exposes them (the resources on a client, recursively, and the functions on each one's
 * prototype), is called against a running appliance and succeeds. Methods the SDK's own type
 * definitions declare `private` are skipped, with that reason printed; every other method needs a
 * recipe below, so a method a newer SDK adds fails this test until it has one.
 */

// ---------------------------------------------------------------------------------------------
// What the SDK declares private, read from its type definitions at run time.
// ---------------------------------------------------------------------------------------------
const require = createRequire(import.meta.url);
const DTS = join(dirname(require.resolve('resend')), 'index.d.mts');

/** class name (as bundled, e.g. `Batch$1`) -> the member names it declares `private <name>;`. */
function privateMembers(dts: string): Map<string, Set<string>> {
  const classes = new Map<string, Set<string>>();
  const classBlock = /^(?:export )?declare class ([\w$]+)[^{\n]*\{\n([\s\S]*?)\n\}/gm;
  for (const [, name, body] of dts.matchAll(classBlock)) {
    const names = new Set([...body!.matchAll(/^\s+private (?:readonly )?([\w$]+);/gm)].map((m) => m[1]!));
    classes.set(name!, names);
  }
  return classes;
}

type Found = { path: string; owner: string };
type Skipped = { path: string; reason: string };

/**
 * The SDK's methods as a client exposes them: its own enumerable object properties (resources),
 * recursively, and every function on each one's prototype but `constructor`. A property or a
 * method its class declares `private` is skipped with the reason; an object reached twice (the
 * deprecated `audiences`, which is `segments`) is walked once, under its first name.
 */
function enumerate(client: object, privates: Map<string, Set<string>>) {
  const methods: Found[] = [];
  const skipped: Skipped[] = [];
  const seen = new Map<object, string>();
  const walk = (object: object, prefix: string) => {
    const className = object.constructor.name;
    const hidden = privates.get(className) ?? new Set<string>();
    for (const [key, value] of Object.entries(object)) {
      if (value === null || typeof value !== 'object') continue;
      const path = prefix ? `${prefix}.${key}` : key;
      if (hidden.has(key)) continue; // `resend` back-references, the client's `headers`
      const earlier = seen.get(value);
      if (earlier !== undefined) {
        skipped.push({
          path: `${path}.*`,
          reason: `the same object as ${earlier} (an alias), its methods called there`,
        });
        continue;
      }
      seen.set(value, path);
      const proto = Object.getPrototypeOf(value) as Record<string, unknown>;
      const resourceClass = value.constructor.name;
      const resourcePrivates = privates.get(resourceClass) ?? new Set<string>();
      for (const name of Object.getOwnPropertyNames(proto)) {
        if (name === 'constructor' || typeof proto[name] !== 'function') continue;
        if (resourcePrivates.has(name))
          skipped.push({ path: `${path}.${name}`, reason: `declared \`private ${name};\` in class ${resourceClass}` });
        else methods.push({ path: `${path}.${name}`, owner: resourceClass });
      }
      walk(value, path);
    }
  };
  walk(client, '');
  return { methods, skipped };
}

// ---------------------------------------------------------------------------------------------
// The appliance: DNS for domain verification, a webhook receiver and delivery worker, a team
// that may send anywhere, a verified sending domain, a receiving domain with an inbox.
// ---------------------------------------------------------------------------------------------
const dns = await TestDnsServer.start();
const receiver = await WebhookReceiver.start();
const app = await startTestApp({
  env: { MAILROOM_DNS_SERVERS: dns.address },
  config: { webhooks: { allowHttp: true, allowAddresses: ['127.0.0.1'], pollMs: 50, retrySchedule: [1, 1, 1] } },
});
const webhookWorker = startWebhookWorker(app.runtime);
t.teardown(async () => {
  await webhookWorker.stop();
  await app.close();
  await receiver.down();
  await dns.close();
});

const team = await app.createTeam('Every method', 'unlimited');
await app.runtime.services.teams.setTier(team.teamId, 2);
const SENDING = 'every-method.test';
await addVerifiedDomain(app, dns, team.token, SENDING);
const RECEIVING = await receivingDomain(app, team.teamId);
const postal = {
  line1: '1 Main Street',
  line2: null,
  city: 'Springfield',
  state: 'IL',
  postal_code: '62701',
  country: 'US',
};
const teamPatch = await request(app.url, '/team', {
  method: 'PATCH',
  token: team.token,
  body: { sender_name: 'Every Method', postal_address: postal },
});
if (teamPatch.status !== 200) throw new Error(`team not updated: ${teamPatch.text}`);

/** Another team owns a verified domain, for domains.claims.*. */
const owner = await app.createTeam('Domain owner', 'unlimited');
const CLAIMED = 'claimed-every.test';
await markedVerifiedDomain(app, owner.teamId, CLAIMED);

/** An OAuth grant of this team, for oauthGrants.*. */
const as = await discover(app);
const oauthClient = await registerClient(as, { client_name: 'Every method client' });
const approval = await approve(app, as, oauthClient, team.teamId, ['team:read']);
await exchange(as, oauthClient, approval);

const resend = new Resend(team.token, { baseUrl: `${app.url}/api/v1` } as never);

// ---------------------------------------------------------------------------------------------
// Recipes: one per method, keyed by its path, in the order they run. Each uses what earlier ones
// made (the ids in `made`); a resource's remove-type methods come last on that resource.
// ---------------------------------------------------------------------------------------------
type SdkResult<T> = { data: T | null; error: unknown };

/** Asserts the SDK answered without an error and with data matching `shape`; returns the data. */
function ok<T>(t: Test, result: SdkResult<T>, shape: Record<string, unknown> | unknown[] = {}): T {
  t.equal(result.error, null, result.error ? `error: ${JSON.stringify(result.error)}` : 'no error');
  t.ok(result.data, 'data');
  t.match(result.data, shape);
  return result.data as T;
}

/** Polls `probe` until it answers something other than undefined. */
async function until<T>(probe: () => Promise<T | undefined>, what: string, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Ids the recipes hand on. A recipe that needs one an earlier recipe failed to make fails too. */
const made: Record<string, string> = {};
const need = (name: string): string => {
  const id = made[name];
  if (!id) throw new Error(`no ${name}: the recipe that makes it failed`);
  return id;
};
const list = { object: 'list', data: Array };
const inbox = () => ({ inboxId: need('inbox') });
const thread = () => ({ ...inbox(), threadId: need('thread') });

const received = (name: string, to: string) =>
  [
    `From: Casey Customer <casey@customer.test>`,
    `To: ${to}`,
    `Subject: ${name}`,
    `Message-ID: <${name}.${Date.now()}@customer.test>`,
    `Date: ${new Date().toUTCString()}`,
    'MIME-Version: 1.0',
    'Content-Type: multipart/mixed; boundary="b1"',
    '',
    '--b1',
    'Content-Type: text/plain; charset=utf-8',
    '',
    'See the attached notes.',
    '--b1',
    'Content-Type: text/plain; name="notes.txt"',
    'Content-Disposition: attachment; filename="notes.txt"',
    'Content-Transfer-Encoding: base64',
    '',
    Buffer.from('some notes\n').toString('base64'),
    '--b1--',
    '',
  ].join('\r\n');

type Recipe = (t: Test) => Promise<void>;
const RECIPES: Record<string, Recipe> = {
  // --- webhooks first, so what follows makes deliveries ---
  'webhooks.create': async (t) => {
    const data = ok(
      t,
      await resend.webhooks.create({
        endpoint: receiver.url('/every'),
        events: ['contact.created', 'suppression.added', 'domain.created', 'email.received'],
      }),
      { object: 'webhook', id: String, signing_secret: /^whsec_/ },
    );
    made.webhook = data.id;
    made.webhookSecret = data.signing_secret;
  },
  'webhooks.get': async (t) => {
    ok(t, await resend.webhooks.get(need('webhook')), { object: 'webhook', id: need('webhook'), status: 'enabled' });
  },
  'webhooks.list': async (t) => {
    const data = ok(t, await resend.webhooks.list(), list);
    t.ok(data.data.some((w) => w.id === need('webhook')));
  },

  // --- apiKeys ---
  'apiKeys.create': async (t) => {
    made.apiKey = ok(t, await resend.apiKeys.create({ name: 'every method' }), { id: String, token: String }).id;
  },
  'apiKeys.list': async (t) => {
    t.ok(ok(t, await resend.apiKeys.list(), list).data.some((k) => k.id === need('apiKey')));
  },
  'apiKeys.update': async (t) => {
    ok(t, await resend.apiKeys.update(need('apiKey'), { name: 'renamed' }), { id: need('apiKey') });
  },
  'apiKeys.remove': async (t) => {
    ok(t, await resend.apiKeys.remove(need('apiKey')), {});
  },

  // --- domains (and claims of another team's domain) ---
  'domains.create': async (t) => {
    const data = ok(t, await resend.domains.create({ name: 'made-by-sdk.test' }), {
      object: 'domain',
      id: String,
      records: Array,
    });
    made.domain = data.id;
    dns.add({ type: 'SOA', name: 'made-by-sdk.test' });
    for (const r of data.records) {
      const fqdn = r.name === '@' ? 'made-by-sdk.test' : `${r.name}.made-by-sdk.test`;
      if (r.type === 'TXT') dns.add({ type: 'TXT', name: fqdn, value: r.value });
      if (r.type === 'MX' && r.record === 'SPF')
        dns.add({ type: 'MX', name: fqdn, exchange: r.value, priority: (r as { priority?: number }).priority });
    }
  },
  'domains.list': async (t) => {
    t.ok(ok(t, await resend.domains.list(), list).data.some((d) => d.id === need('domain')));
  },
  'domains.get': async (t) => {
    ok(t, await resend.domains.get(need('domain')), { object: 'domain', id: need('domain'), name: 'made-by-sdk.test' });
  },
  'domains.update': async (t) => {
    ok(t, await resend.domains.update({ id: need('domain'), tls: 'enforced' }), { id: need('domain') });
  },
  'domains.verify': async (t) => {
    ok(t, await resend.domains.verify(need('domain')), { id: need('domain') });
    const status = await until(async () => {
      const s = (await resend.domains.get(need('domain'))).data?.status;
      return s === 'verified' ? s : undefined;
    }, 'the domain verified');
    t.equal(status, 'verified');
  },
  'domains.claims.create': async (t) => {
    const data = ok(t, await resend.domains.claims.create({ name: CLAIMED }), {
      object: 'domain_claim',
      id: String,
      name: CLAIMED,
      domain_id: String,
    });
    made.claimDomain = data.domain_id!;
  },
  'domains.claims.get': async (t) => {
    ok(t, await resend.domains.claims.get(need('claimDomain')), { object: 'domain_claim', name: CLAIMED });
  },
  'domains.claims.verify': async (t) => {
    ok(t, await resend.domains.claims.verify(need('claimDomain')), { name: CLAIMED, status: String });
  },
  'domains.remove': async (t) => {
    ok(t, await resend.domains.remove(need('domain')), { id: need('domain'), deleted: true });
  },

  // --- contact properties, topics, segments, contacts ---
  'contactProperties.create': async (t) => {
    made.property = ok(
      t,
      await resend.contactProperties.create({ key: 'plan', type: 'string', fallbackValue: 'free' }),
      {
        id: String,
      },
    ).id;
  },
  'contactProperties.list': async (t) => {
    t.ok(ok(t, await resend.contactProperties.list(), list).data.some((p) => p.id === need('property')));
  },
  'contactProperties.get': async (t) => {
    ok(t, await resend.contactProperties.get(need('property')), { id: need('property'), key: 'plan' });
  },
  'contactProperties.update': async (t) => {
    ok(t, await resend.contactProperties.update({ id: need('property'), fallbackValue: 'starter' }), {
      id: need('property'),
    });
  },
  'topics.create': async (t) => {
    made.topic = ok(t, await resend.topics.create({ name: 'News', defaultSubscription: 'opt_in' }), { id: String }).id;
  },
  'topics.list': async (t) => {
    t.ok(ok(t, await resend.topics.list(), list).data.some((x) => x.id === need('topic')));
  },
  'topics.get': async (t) => {
    ok(t, await resend.topics.get(need('topic')), { object: 'topic', id: need('topic'), name: 'News' });
  },
  'topics.update': async (t) => {
    ok(t, await resend.topics.update({ id: need('topic'), name: 'Product news' }), { id: need('topic') });
  },
  'segments.create': async (t) => {
    made.segment = ok(t, await resend.segments.create({ name: 'Everyone' }), { id: String }).id;
    made.segment2 = ok(t, await resend.segments.create({ name: 'Second' }), { id: String }).id;
  },
  'segments.list': async (t) => {
    t.ok(ok(t, await resend.segments.list(), list).data.some((s) => s.id === need('segment')));
  },
  'segments.get': async (t) => {
    ok(t, await resend.segments.get(need('segment')), { object: 'segment', id: need('segment') });
  },
  'segments.update': async (t) => {
    ok(t, await resend.segments.update(need('segment'), { name: 'Everyone here' }), { id: need('segment') });
  },
  'contacts.create': async (t) => {
    made.contact = ok(
      t,
      await resend.contacts.create({
        email: 'ada@example.com',
        firstName: 'Ada',
        properties: { plan: 'pro' },
        segments: [{ id: need('segment') }],
      }),
      { id: String },
    ).id;
  },
  'contacts.list': async (t) => {
    t.ok(ok(t, await resend.contacts.list(), list).data.some((c) => c.id === need('contact')));
  },
  'contacts.get': async (t) => {
    ok(t, await resend.contacts.get({ email: 'ada@example.com' }), { object: 'contact', id: need('contact') });
  },
  'contacts.update': async (t) => {
    ok(t, await resend.contacts.update({ id: need('contact'), lastName: 'Lovelace' }), { id: need('contact') });
  },
  'contacts.segments.add': async (t) => {
    ok(t, await resend.contacts.segments.add({ contactId: need('contact'), segmentId: need('segment2') }), {
      id: String,
    });
  },
  'contacts.segments.list': async (t) => {
    const data = ok(t, await resend.contacts.segments.list({ contactId: need('contact') }), list);
    t.same(data.data.map((s) => s.id).sort(), [need('segment'), need('segment2')].sort());
  },
  'contacts.segments.remove': async (t) => {
    ok(t, await resend.contacts.segments.remove({ contactId: need('contact'), segmentId: need('segment2') }), {
      deleted: true,
    });
  },
  'contacts.topics.update': async (t) => {
    ok(
      t,
      await resend.contacts.topics.update({
        id: need('contact'),
        topics: [{ id: need('topic'), subscription: 'opt_out' }],
      }),
      { id: String },
    );
  },
  'contacts.topics.list': async (t) => {
    const data = ok(t, await resend.contacts.topics.list({ id: need('contact') }), list);
    t.match(data.data, [{ id: need('topic'), subscription: 'opt_out' }]);
  },
  'contacts.imports.create': async (t) => {
    const csv = 'Address,Name\nimp1@example.com,One\nimp2@example.com,Two\n';
    made.import = ok(
      t,
      await resend.contacts.imports.create({
        file: new Blob([csv], { type: 'text/csv' }),
        columnMap: { email: 'Address', firstName: 'Name' },
        segments: [{ id: need('segment') }],
      }),
      { object: 'contact_import', id: String },
    ).id;
  },
  'contacts.imports.list': async (t) => {
    t.ok(ok(t, await resend.contacts.imports.list(), list).data.some((i) => i.id === need('import')));
  },
  'contacts.imports.get': async (t) => {
    ok(t, await resend.contacts.imports.get(need('import')), { object: 'contact_import', id: need('import') });
  },

  // --- suppressions ---
  'suppressions.add': async (t) => {
    made.suppression = ok(t, await resend.suppressions.add({ email: 'blocked@example.com' }), {
      object: 'suppression',
      id: String,
    }).id;
  },
  'suppressions.list': async (t) => {
    t.ok(ok(t, await resend.suppressions.list(), list).data.some((s) => s.id === need('suppression')));
  },
  'suppressions.get': async (t) => {
    ok(t, await resend.suppressions.get('blocked@example.com'), { id: need('suppression') });
  },
  'suppressions.batch.add': async (t) => {
    const data = ok(t, await resend.suppressions.batch.add({ emails: ['b1@example.com', 'b2@example.com'] }), {
      data: Array,
    });
    t.equal(data.data.length, 2);
  },
  'suppressions.batch.remove': async (t) => {
    ok(t, await resend.suppressions.batch.remove({ emails: ['b1@example.com', 'b2@example.com'] }), { data: Array });
  },
  'suppressions.remove': async (t) => {
    ok(t, await resend.suppressions.remove(need('suppression')), { id: need('suppression'), deleted: true });
  },

  // --- templates ---
  'templates.create': async (t) => {
    made.template = ok(
      t,
      await resend.templates.create({
        name: 'Welcome',
        subject: 'Welcome {{{NAME}}}',
        html: '<p>Hi {{{NAME}}}</p>',
        from: `Acme <hello@${SENDING}>`,
        variables: [{ key: 'NAME', type: 'string', fallbackValue: 'friend' }],
      }),
      { id: String },
    ).id;
  },
  'templates.list': async (t) => {
    t.ok(ok(t, await resend.templates.list(), list).data.some((x) => x.id === need('template')));
  },
  'templates.get': async (t) => {
    ok(t, await resend.templates.get(need('template')), { object: 'template', id: need('template') });
  },
  'templates.update': async (t) => {
    ok(t, await resend.templates.update(need('template'), { name: 'Welcome 2' }), { id: need('template') });
  },
  'templates.publish': async (t) => {
    ok(t, await resend.templates.publish(need('template')), { id: need('template') });
  },
  'templates.duplicate': async (t) => {
    made.templateCopy = ok(t, await resend.templates.duplicate(need('template')), { id: String }).id;
    t.not(made.templateCopy, need('template'));
  },
  'templates.remove': async (t) => {
    ok(t, await resend.templates.remove(need('templateCopy')), { id: need('templateCopy'), deleted: true });
  },

  // --- emails and batch ---
  'emails.send': async (t) => {
    made.email = ok(
      t,
      await resend.emails.send({
        from: `Acme <hello@${SENDING}>`,
        to: 'someone@example.net',
        subject: 'Hello',
        text: 'Hello there',
        attachments: [{ filename: 'a.txt', content: Buffer.from('attached').toString('base64') }],
      }),
      { id: String },
    ).id;
  },
  'emails.create': async (t) => {
    made.scheduled = ok(
      t,
      await resend.emails.create({
        from: `Acme <hello@${SENDING}>`,
        to: ['later@example.net'],
        subject: 'Later',
        html: '<p>Later</p>',
        scheduledAt: 'in 1 hour',
      }),
      { id: String },
    ).id;
    made.scheduled2 = ok(
      t,
      await resend.emails.create({
        from: `Acme <hello@${SENDING}>`,
        to: ['later@example.net'],
        subject: 'Later too',
        text: 'Later',
        scheduledAt: 'in 1 hour',
      }),
      { id: String },
    ).id;
  },
  'emails.get': async (t) => {
    ok(t, await resend.emails.get(need('email')), { object: 'email', id: need('email'), subject: 'Hello' });
  },
  'emails.list': async (t) => {
    t.ok(ok(t, await resend.emails.list(), list).data.some((e) => e.id === need('email')));
  },
  'emails.update': async (t) => {
    ok(t, await resend.emails.update({ id: need('scheduled'), scheduledAt: 'in 2 hours' }), { id: need('scheduled') });
  },
  'emails.cancel': async (t) => {
    ok(t, await resend.emails.cancel(need('scheduled2')), { id: need('scheduled2') });
  },
  'emails.share': async (t) => {
    ok(t, await resend.emails.share(need('email'), { expiresIn: '2 hours' }), { id: need('email'), url: String });
  },
  'emails.metrics': async (t) => {
    ok(t, await resend.emails.metrics({ metrics: ['sent'] }), { totals: Object });
  },
  'emails.attachments.list': async (t) => {
    const data = ok(t, await resend.emails.attachments.list({ emailId: need('email') }), list);
    t.equal(data.data.length, 1);
    made.sentAttachment = data.data[0]?.id ?? '';
  },
  'emails.attachments.get': async (t) => {
    ok(t, await resend.emails.attachments.get({ emailId: need('email'), id: need('sentAttachment') }), {
      object: 'attachment',
      id: need('sentAttachment'),
      filename: 'a.txt',
    });
  },
  'batch.send': async (t) => {
    const data = ok(
      t,
      await resend.batch.send([
        { from: `hello@${SENDING}`, to: 'one@example.net', subject: 'One', text: '1' },
        { from: `hello@${SENDING}`, to: 'two@example.net', subject: 'Two', text: '2' },
      ]),
      { data: Array },
    );
    t.equal(data.data.length, 2);
  },
  'batch.create': async (t) => {
    ok(
      t,
      await resend.batch.create([{ from: `hello@${SENDING}`, to: 'three@example.net', subject: 'Three', text: '3' }]),
      {
        data: [{ id: String }],
      },
    );
  },

  // --- received mail ---
  'emails.receiving.list': async (t) => {
    const raw = received('receiving', `hello@${RECEIVING}`);
    made.received = (await receiveMessage(app, { from: 'casey@customer.test', to: [`hello@${RECEIVING}`], raw })).id;
    t.ok(ok(t, await resend.emails.receiving.list(), list).data.some((e) => e.id === need('received')));
  },
  'emails.receiving.get': async (t) => {
    ok(t, await resend.emails.receiving.get(need('received')), { id: need('received'), subject: 'receiving' });
  },
  'emails.receiving.attachments.list': async (t) => {
    const data = ok(t, await resend.emails.receiving.attachments.list({ emailId: need('received') }), list);
    t.equal(data.data.length, 1);
    made.receivedAttachment = data.data[0]?.id ?? '';
  },
  'emails.receiving.attachments.get': async (t) => {
    ok(
      t,
      await resend.emails.receiving.attachments.get({ emailId: need('received'), id: need('receivedAttachment') }),
      {
        id: need('receivedAttachment'),
        filename: 'notes.txt',
      },
    );
  },
  'emails.receiving.forward': async (t) => {
    ok(
      t,
      await resend.emails.receiving.forward({
        emailId: need('received'),
        from: `Support <help@${SENDING}>`,
        to: 'agent@example.net',
      }),
      { id: String },
    );
  },

  // --- custom events and automations (with a run) ---
  'events.create': async (t) => {
    made.event = ok(t, await resend.events.create({ name: 'user.signed_up' }), { object: 'event', id: String }).id;
  },
  'events.list': async (t) => {
    t.ok(ok(t, await resend.events.list(), list).data.some((e) => e.id === need('event')));
  },
  'events.get': async (t) => {
    ok(t, await resend.events.get('user.signed_up'), { object: 'event', id: need('event') });
  },
  'events.update': async (t) => {
    ok(t, await resend.events.update('user.signed_up', { schema: { plan: 'string' } }), { id: need('event') });
  },
  'automations.create': async (t) => {
    made.automation = ok(
      t,
      await resend.automations.create({
        name: 'Welcome',
        status: 'enabled',
        steps: [
          { key: 'start', type: 'trigger', config: { eventName: 'user.signed_up' } },
          { key: 'wait', type: 'delay', config: { duration: '2 days' } },
          { key: 'mail', type: 'send_email', config: { template: { id: need('template') } } },
        ],
        connections: [
          { from: 'start', to: 'wait' },
          { from: 'wait', to: 'mail' },
        ],
      }),
      { object: 'automation', id: String },
    ).id;
  },
  'automations.list': async (t) => {
    t.ok(ok(t, await resend.automations.list(), list).data.some((a) => a.id === need('automation')));
  },
  'automations.get': async (t) => {
    ok(t, await resend.automations.get(need('automation')), { object: 'automation', id: need('automation') });
  },
  'automations.update': async (t) => {
    ok(t, await resend.automations.update(need('automation'), { name: 'Welcome flow' }), { id: need('automation') });
  },
  'events.send': async (t) => {
    ok(t, await resend.events.send({ event: 'user.signed_up', contactId: need('contact'), payload: { plan: 'pro' } }), {
      object: 'event',
      event: 'user.signed_up',
    });
    await app.runtime.services.automationRuns.tick(60_000);
  },
  'automations.runs.list': async (t) => {
    const data = ok(t, await resend.automations.runs.list({ automationId: need('automation') }), list);
    t.equal(data.data.length, 1, 'the event enrolled the contact');
    made.run = data.data[0]?.id ?? '';
  },
  'automations.runs.get': async (t) => {
    ok(t, await resend.automations.runs.get({ automationId: need('automation'), runId: need('run') }), {
      object: 'automation_run',
      id: need('run'),
    });
  },
  'automations.duplicate': async (t) => {
    made.automationCopy = ok(t, await resend.automations.duplicate(need('automation')), { id: String }).id;
  },
  'automations.stop': async (t) => {
    ok(t, await resend.automations.stop(need('automation')), { id: need('automation'), status: 'disabled' });
  },
  'automations.remove': async (t) => {
    ok(t, await resend.automations.remove(need('automationCopy')), { id: need('automationCopy'), deleted: true });
  },
  'events.remove': async (t) => {
    ok(t, await resend.events.create({ name: 'app.opened' }), { id: String });
    ok(t, await resend.events.remove('app.opened'), { object: 'event', deleted: true });
  },

  // --- broadcasts ---
  'broadcasts.create': async (t) => {
    made.broadcast = ok(
      t,
      await resend.broadcasts.create({
        name: 'News',
        segmentId: need('segment'),
        from: `Acme <news@${SENDING}>`,
        subject: 'Hi',
        html: '<p>Hi {{{FIRST_NAME|there}}}</p>',
      }),
      { id: String },
    ).id;
  },
  'broadcasts.list': async (t) => {
    t.ok(ok(t, await resend.broadcasts.list(), list).data.some((b) => b.id === need('broadcast')));
  },
  'broadcasts.get': async (t) => {
    ok(t, await resend.broadcasts.get(need('broadcast')), { object: 'broadcast', id: need('broadcast') });
  },
  'broadcasts.update': async (t) => {
    ok(t, await resend.broadcasts.update(need('broadcast'), { subject: 'Hello' }), { id: need('broadcast') });
  },
  'broadcasts.duplicate': async (t) => {
    made.broadcastCopy = ok(t, await resend.broadcasts.duplicate(need('broadcast')), { id: String }).id;
  },
  'broadcasts.recipients': async (t) => {
    ok(t, await resend.broadcasts.recipients(need('broadcast'), { type: 'sent' }), list);
  },
  'broadcasts.clickedLinks': async (t) => {
    ok(t, await resend.broadcasts.clickedLinks(need('broadcast')), list);
  },
  'broadcasts.send': async (t) => {
    ok(t, await resend.broadcasts.send(need('broadcast'), { scheduledAt: 'in 1 day' }), { id: need('broadcast') });
  },
  'broadcasts.cancel': async (t) => {
    ok(t, await resend.broadcasts.cancel(need('broadcast')), { id: need('broadcast') });
  },
  'broadcasts.remove': async (t) => {
    ok(t, await resend.broadcasts.remove(need('broadcastCopy')), { id: need('broadcastCopy'), deleted: true });
  },

  // --- inboxes ---
  'inboxes.create': async (t) => {
    made.inbox = ok(
      t,
      await resend.inboxes.create({ emailAddress: `support@${RECEIVING}`, name: 'Support', fromName: 'Acme Support' }),
      { object: 'inbox', id: String },
    ).id;
    const first = await customerWrites(app, { to: `support@${RECEIVING}`, subject: 'Where is my order?' });
    made.inboxEmail = first.receivedId;
  },
  'inboxes.list': async (t) => {
    t.ok(ok(t, await resend.inboxes.list(), list).data.some((i) => i.id === need('inbox')));
  },
  'inboxes.get': async (t) => {
    ok(t, await resend.inboxes.get(`support@${RECEIVING}`), { object: 'inbox', id: need('inbox'), unread: 1 });
  },
  'inboxes.update': async (t) => {
    ok(t, await resend.inboxes.update(need('inbox'), { name: 'Help desk' }), { object: 'inbox', id: need('inbox') });
  },
  'inboxes.agent.get': async (t) => {
    ok(t, await resend.inboxes.agent.get(inbox()), { object: 'inbox_agent', actions: Array });
  },
  'inboxes.agent.update': async (t) => {
    ok(
      t,
      await resend.inboxes.agent.update({
        ...inbox(),
        instructions: 'Label billing questions as Billing.',
        tone: 'concise_professional',
        actions: ['add_labels'],
      }),
      { object: 'inbox_agent', id: need('inbox') },
    );
  },
  'inboxes.labels.create': async (t) => {
    made.label = ok(t, await resend.inboxes.labels.create({ ...inbox(), name: 'Billing', color: '#E93D82' }), {
      object: 'inbox_label',
      id: String,
    }).id;
    made.label2 = ok(t, await resend.inboxes.labels.create({ ...inbox(), name: 'Urgent' }), { id: String }).id;
  },
  'inboxes.labels.list': async (t) => {
    t.equal(ok(t, await resend.inboxes.labels.list(inbox()), list).data.length, 2);
  },
  'inboxes.labels.update': async (t) => {
    ok(t, await resend.inboxes.labels.update({ ...inbox(), labelId: need('label'), name: 'Finance' }), {
      id: need('label'),
    });
  },
  'inboxes.threads.list': async (t) => {
    const data = ok(t, await resend.inboxes.threads.list(inbox()), list);
    t.equal(data.data.length, 1);
    made.thread = data.data[0]?.id ?? '';
  },
  'inboxes.threads.search': async (t) => {
    const data = ok(t, await resend.inboxes.threads.search({ ...inbox(), query: 'order' }), list);
    t.same(
      data.data.map((x) => x.id),
      [need('thread')],
    );
  },
  'inboxes.threads.get': async (t) => {
    ok(t, await resend.inboxes.threads.get(thread()), { id: need('thread'), subject: 'Where is my order?' });
  },
  'inboxes.threads.update': async (t) => {
    ok(t, await resend.inboxes.threads.update({ ...thread(), read: true }), { id: need('thread'), read: true });
  },
  'inboxes.threads.labels.add': async (t) => {
    ok(t, await resend.inboxes.threads.labels.add({ ...thread(), labels: [need('label')] }), {
      data: [{ id: need('label') }],
    });
  },
  'inboxes.threads.labels.set': async (t) => {
    const data = ok(
      t,
      await resend.inboxes.threads.labels.set({ ...thread(), labels: [need('label'), need('label2')] }),
      list,
    );
    t.equal(data.data.length, 2);
  },
  'inboxes.threads.labels.remove': async (t) => {
    ok(t, await resend.inboxes.threads.labels.remove({ ...thread(), labelId: need('label2') }), {
      data: [{ id: need('label') }],
    });
  },
  'inboxes.threads.emails.list': async (t) => {
    t.match(ok(t, await resend.inboxes.threads.emails.list(thread()), list).data, [{ id: need('inboxEmail') }]);
  },
  'inboxes.threads.emails.get': async (t) => {
    ok(t, await resend.inboxes.threads.emails.get({ ...thread(), emailId: need('inboxEmail') }), {
      id: need('inboxEmail'),
      direction: 'inbound',
    });
  },
  'inboxes.threads.emails.reply': async (t) => {
    ok(
      t,
      await resend.inboxes.threads.emails.reply({ ...thread(), emailId: need('inboxEmail'), text: 'On its way.' }),
      {
        id: String,
      },
    );
  },
  'inboxes.threads.emails.forward': async (t) => {
    ok(
      t,
      await resend.inboxes.threads.emails.forward({
        ...thread(),
        emailId: need('inboxEmail'),
        to: 'billing@partner.test',
        text: 'Over to you.',
      }),
      { id: String },
    );
  },
  'inboxes.drafts.create': async (t) => {
    made.draft = ok(
      t,
      await resend.inboxes.drafts.create({
        ...thread(),
        replyToEmailId: need('inboxEmail'),
        text: 'A drafted reply.',
      }),
      { object: 'inbox_draft', id: String },
    ).id;
    made.draft2 = ok(
      t,
      await resend.inboxes.drafts.create({ ...inbox(), to: 'someone@example.net', subject: 'Draft', text: 'x' }),
      { id: String },
    ).id;
  },
  'inboxes.drafts.list': async (t) => {
    t.equal(ok(t, await resend.inboxes.drafts.list(inbox()), list).data.length, 2);
  },
  'inboxes.drafts.get': async (t) => {
    ok(t, await resend.inboxes.drafts.get({ ...inbox(), draftId: need('draft') }), {
      object: 'inbox_draft',
      id: need('draft'),
      type: 'reply',
    });
  },
  'inboxes.drafts.update': async (t) => {
    ok(t, await resend.inboxes.drafts.update({ ...inbox(), draftId: need('draft'), text: 'It ships tomorrow.' }), {
      id: need('draft'),
    });
  },
  'inboxes.drafts.send': async (t) => {
    ok(t, await resend.inboxes.drafts.send({ ...inbox(), draftId: need('draft') }), { id: String });
  },
  'inboxes.drafts.remove': async (t) => {
    ok(t, await resend.inboxes.drafts.remove({ ...inbox(), draftId: need('draft2') }), {
      id: need('draft2'),
      deleted: true,
    });
  },
  'inboxes.labels.remove': async (t) => {
    ok(t, await resend.inboxes.labels.remove({ ...inbox(), labelId: need('label2') }), {
      id: need('label2'),
      deleted: true,
    });
  },
  'inboxes.threads.remove': async (t) => {
    ok(t, await resend.inboxes.threads.remove(thread()), { id: need('thread'), deleted: true });
  },
  'inboxes.remove': async (t) => {
    ok(t, await resend.inboxes.remove(need('inbox')), { object: 'inbox', id: need('inbox'), deleted: true });
  },

  // --- webhook deliveries of all the above ---
  'webhooks.events.list': async (t) => {
    const data = await until(async () => {
      const page = await resend.webhooks.events.list({ webhookId: need('webhook') });
      return page.data?.data.some((e) => e.status === 'success') ? page : undefined;
    }, 'a successful webhook delivery');
    const event = ok(t, data, list).data.find((e) => e.status === 'success');
    made.webhookEvent = event?.id ?? '';
  },
  'webhooks.events.get': async (t) => {
    ok(t, await resend.webhooks.events.get({ webhookId: need('webhook'), eventId: need('webhookEvent') }), {
      object: 'webhook_event',
      id: need('webhookEvent'),
      status: 'success',
    });
  },
  'webhooks.events.attempts.list': async (t) => {
    const data = ok(
      t,
      await resend.webhooks.events.attempts.list({ webhookId: need('webhook'), eventId: need('webhookEvent') }),
      list,
    );
    t.match(data.data[0], { http_status_code: 200 });
  },
  'webhooks.events.replay': async (t) => {
    ok(t, await resend.webhooks.events.replay({ webhookId: need('webhook'), eventId: need('webhookEvent') }), {
      id: need('webhookEvent'),
    });
  },
  'webhooks.verify': async (t) => {
    const delivered = receiver.received.find((w) => w.path === '/every');
    if (!delivered) throw new Error('no delivery reached the receiver');
    const payload = resend.webhooks.verify({
      payload: delivered.body,
      headers: {
        id: String(delivered.headers['webhook-id']),
        timestamp: String(delivered.headers['webhook-timestamp']),
        signature: String(delivered.headers['webhook-signature']),
      },
      webhookSecret: need('webhookSecret'),
    });
    t.match(payload, { type: String, data: Object }, 'a delivery signed with the webhook’s secret verifies');
    t.throws(
      () =>
        resend.webhooks.verify({
          payload: delivered.body.replace(/}$/, ' }'),
          headers: {
            id: String(delivered.headers['webhook-id']),
            timestamp: String(delivered.headers['webhook-timestamp']),
            signature: String(delivered.headers['webhook-signature']),
          },
          webhookSecret: need('webhookSecret'),
        }),
      'a changed body does not',
    );
  },
  'webhooks.update': async (t) => {
    ok(t, await resend.webhooks.update(need('webhook'), { events: ['email.sent'] }), { id: need('webhook') });
  },
  'webhooks.rotateSigningSecret': async (t) => {
    const data = ok(t, await resend.webhooks.rotateSigningSecret(need('webhook')), { signing_secret: /^whsec_/ });
    t.not(data.signing_secret, need('webhookSecret'));
  },
  'webhooks.remove': async (t) => {
    ok(t, await resend.webhooks.remove(need('webhook')), { id: need('webhook'), deleted: true });
  },

  // --- the rest, and what had to wait for the others ---
  'usage.get': async (t) => {
    ok(t, await resend.usage.get(), { object: 'usage', emails: Object });
  },
  'logs.list': async (t) => {
    // Request logs are written as requests end: wait for one to be there.
    const page = await until(async () => {
      const answer = await resend.logs.list();
      return answer.error || answer.data?.data.length ? answer : undefined;
    }, 'a request log');
    made.log = ok(t, page, list).data[0]?.id ?? '';
  },
  'logs.get': async (t) => {
    ok(t, await resend.logs.get(need('log')), { object: 'log', id: need('log') });
  },
  'oauthGrants.list': async (t) => {
    const data = ok(t, await resend.oauthGrants.list(), list);
    t.same(
      data.data.map((g) => g.id),
      [approval.grantId],
    );
  },
  'oauthGrants.revoke': async (t) => {
    ok(t, await resend.oauthGrants.revoke(approval.grantId), { id: approval.grantId, revoked_at: String });
  },
  'contacts.remove': async (t) => {
    ok(t, await resend.contacts.remove(need('contact')), { deleted: true });
  },
  'segments.remove': async (t) => {
    ok(t, await resend.segments.remove(need('segment2')), { id: need('segment2'), deleted: true });
  },
  'topics.remove': async (t) => {
    ok(t, await resend.topics.remove(need('topic')), { id: need('topic'), deleted: true });
  },
  'contactProperties.remove': async (t) => {
    ok(t, await resend.contactProperties.remove(need('property')), { id: need('property'), deleted: true });
  },
};

// ---------------------------------------------------------------------------------------------
// The run: enumerate, check every method has a recipe, call each through the enumerated method.
// ---------------------------------------------------------------------------------------------
const { methods, skipped } = enumerate(resend, privateMembers(readFileSync(DTS, 'utf8')));
const found = new Set(methods.map((m) => m.path));

/** Each enumerated method wrapped on its resource, so a recipe is seen to call it. */
const called = new Set<string>();
for (const { path } of methods) {
  const parts = path.split('.');
  const name = parts.pop()!;
  const resource = parts.reduce<any>((object, key) => object[key], resend);
  const original = resource[name] as (...args: unknown[]) => unknown;
  resource[name] = function (this: unknown, ...args: unknown[]) {
    called.add(path);
    return original.apply(this, args);
  };
}

t.test('every method the SDK exposes has a recipe', async (t) => {
  t.ok(methods.length > 100, `${methods.length} methods found`);
  const missing = methods.filter((m) => !(m.path in RECIPES)).map((m) => `${m.path} (${m.owner})`);
  t.same(missing, [], 'methods found at run time without a recipe');
  const stale = Object.keys(RECIPES).filter((path) => !found.has(path));
  t.same(stale, [], 'recipes for methods the SDK does not have');
  for (const { path, reason } of skipped) t.comment(`skipped ${path}: ${reason}`);
});

for (const [path, recipe] of Object.entries(RECIPES)) {
  if (!found.has(path)) continue;
  await t.test(path, async (t) => {
    await recipe(t);
    t.ok(called.has(path), `${path} was called`);
  });
}

t.test('summary', async (t) => {
  const notCalled = methods.filter((m) => !called.has(m.path)).map((m) => m.path);
  t.same(notCalled, [], 'every method was called');
  const privates = skipped.filter((s) => s.reason.startsWith('declared'));
  const aliases = skipped.filter((s) => !s.reason.startsWith('declared'));
  t.comment(
    `SDK methods: ${methods.length + privates.length} found, ${methods.length - notCalled.length} called, ` +
      `${privates.length} private (skipped: ${privates.map((s) => s.path).join(', ')})` +
      (aliases.length ? `; aliases not walked again: ${aliases.map((s) => `${s.path} (${s.reason})`).join(', ')}` : ''),
  );
});
