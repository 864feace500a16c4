import { execFile } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { Resend } from 'resend';
import t from 'tap';
import { logUrl, spawnMailroom, stopChild } from '../helpers/spawn-mailroom.js';
import { TestDnsServer } from '../helpers/dns-server.js';
import { SmtpSink } from '../helpers/smtp-sink.js';
import { commandEnv } from '../helpers/process-env.js';
import { createTestDatabase } from '../helpers/test-database.js';

/**
 * Prometheus metrics through the real processes: `mailroom start` serves one endpoint on its own
 * listen address (never the API's), every series named after the process; traffic shows up in
 * the counters (API requests by route, rate-limit refusals, deliveries by outcome, SMTP reply
 * classes, DNS failures) and stored state in the gauges read at scrape (queue by state and lane,
 * oldest due age, webhook outbox, database pool). A process run alone serves its own; a taken
 * port costs the metrics, not the process.
 */
const run = promisify(execFile);
const database = createTestDatabase();
t.teardown(() => database.drop());
// example.test's mail server is a sink on loopback, found through the test DNS server.
const dns = await TestDnsServer.start();
t.teardown(() => dns.close());
const sink = await SmtpSink.start('127.0.0.10', 0);
t.teardown(() => sink.close());
dns.add(
  { type: 'MX', name: 'example.test', exchange: 'mx.example.test' },
  { type: 'A', name: 'mx.example.test', address: '127.0.0.10' },
);
sink.faults.push({ stage: 'rcpt', code: 451, message: '4.7.1 Try again later', recipient: 'later@example.test' });
const env = commandEnv(database, {
  MAILROOM_ENV: 'development',
  MAILROOM_DNS_SERVERS: dns.address,
  MAILROOM_MTA_PORT: String(sink.port),
  MAILROOM_RATE_LIMIT_PER_SECOND: '3',
});
const mailroom = (args: string[]) =>
  run(process.execPath, ['bin/mailroom.js', ...args], { env: { ...env, MAILROOM_FROM_SOURCE: '1' } });

const created = JSON.parse((await mailroom(['team', 'create', '--name', 'Acme', '--plan', 'pro'])).stdout);
await mailroom(['dev', 'trust-domain', '--team', created.team.id, '--name', 'example.test']);
await mailroom(['dev', 'trust-domain', '--team', created.team.id, '--name', 'other.test']);

type Sample = { name: string; labels: Record<string, string>; value: number };

/** The exposition text as samples (`name{a="b",...} value`), comments left out. */
function parse(text: string): Sample[] {
  return text
    .split('\n')
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)/.exec(line);
      if (!match) throw new Error(`not an exposition line: ${line}`);
      const labels = Object.fromEntries(
        [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
      );
      return { name: match[1]!, labels: labels as Record<string, string>, value: Number(match[3]) };
    });
}

/** The sum of the samples named `name` whose labels include `labels`. */
function sum(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(labels).every(([key, value]) => s.labels[key] === value))
    .reduce((total, s) => total + s.value, 0);
}

async function scrape(url: string): Promise<{ type: string; samples: Sample[]; text: string }> {
  const response = await fetch(url);
  if (response.status !== 200) throw new Error(`GET ${url}: ${response.status}`);
  const text = await response.text();
  return { type: response.headers.get('content-type') ?? '', samples: parse(text), text };
}

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 150; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const { child, ready } = spawnMailroom('start', env);
const metricsUrlPromise = logUrl(child, 'metrics listening');
t.teardown(() => stopChild(child));
const apiUrl = await ready;
const metricsUrl = await metricsUrlPromise;
const resend = new Resend(created.api_key.token, { baseUrl: `${apiUrl}/api/v1` } as never);

t.test('one endpoint on its own address, in the exposition format, named after the process', async (t) => {
  t.not(new URL(metricsUrl).port, new URL(apiUrl).port, 'not the API port');
  t.equal(new URL(metricsUrl).hostname, '127.0.0.1', 'loopback by default');
  const { type, samples } = await scrape(metricsUrl);
  t.match(type, /^text\/plain; version=0\.0\.4/);
  t.ok(
    samples.every((s) => s.labels.process === 'start'),
    'every series says which process',
  );
  for (const name of [
    'mailroom_process_cpu_user_seconds_total',
    'mailroom_process_resident_memory_bytes',
    'mailroom_nodejs_eventloop_lag_seconds',
  ])
    t.ok(
      samples.some((s) => s.name === name),
      `${name} (process metrics)`,
    );
  for (const state of ['queued', 'deferred', 'sending', 'held'])
    for (const lane of ['transactional', 'bulk'])
      t.equal(
        sum(samples, 'mailroom_queue_deliveries', { state, lane }),
        0,
        `an empty queue reads 0 (${state}, ${lane})`,
      );
  t.equal(sum(samples, 'mailroom_queue_oldest_due_age_seconds'), 0);
  t.equal(sum(samples, 'mailroom_webhook_outbox_deliveries'), 0);
  t.ok(sum(samples, 'mailroom_database_pool_connections', { state: 'free' }) >= 0);
  t.ok(
    samples.some((s) => s.name === 'mailroom_database_pool_connections' && s.labels.state === 'used'),
    'the database pool by state',
  );

  const other = await fetch(metricsUrl.replace(/\/metrics$/, '/'));
  t.equal(other.status, 404, 'nothing else is served there');
  await other.text();
  const onApi = await fetch(`${apiUrl}/metrics`);
  t.equal(onApi.status, 404, 'the public API does not serve metrics');
  await onApi.text();
});

t.test('a delivery shows in the API histogram, the outcomes and the reply classes', async (t) => {
  const sent = await resend.emails.send({
    from: 'Acme <hello@example.test>',
    to: 'alice@example.test',
    subject: 'Counted',
    text: 'once',
  });
  t.equal(sent.error, null, JSON.stringify(sent.error));
  await until(
    async () => (await resend.emails.get(sent.data!.id)).data?.last_event === 'delivered',
    'the email to be delivered',
  );
  const { samples } = await scrape(metricsUrl);
  t.ok(
    sum(samples, 'mailroom_api_request_duration_seconds_count', { method: 'POST', route: '/emails', status: '200' }) >=
      1,
    'POST /emails counted under its route template',
  );
  t.ok(
    sum(samples, 'mailroom_api_request_duration_seconds_count', { method: 'GET', route: '/emails/:email_id' }) >= 1,
    'GET /emails/{id} under its template, not the id',
  );
  t.notOk(
    samples.some((s) => s.labels.route?.includes(sent.data!.id)),
    'no id in a route label',
  );
  t.equal(sink.messages.length, 1, 'the sink has it');
  t.equal(sum(samples, 'mailroom_deliveries_total', { outcome: 'delivered' }), 1, 'one delivered');
  t.equal(sum(samples, 'mailroom_smtp_replies_total', { class: '2xx', domain: 'example.test' }), 1, "the sink's 250");
  t.equal(sum(samples, 'mailroom_dkim_sign_duration_seconds_count'), 1, 'one message signed');
});

t.test('rate-limit refusals are counted', async (t) => {
  const statuses = await Promise.all(
    Array.from({ length: 12 }, async () => {
      const response = await fetch(`${apiUrl}/api/v1/domains`, {
        headers: { authorization: `Bearer ${created.api_key.token}` },
      });
      await response.text();
      return response.status;
    }),
  );
  const refused = statuses.filter((status) => status === 429).length;
  t.ok(refused > 0, `some of 12 requests at once refused at 3/s (${refused})`);
  const { samples } = await scrape(metricsUrl);
  t.ok(sum(samples, 'mailroom_api_rate_limited_total') >= refused, 'each refusal counted');
  t.ok(
    sum(samples, 'mailroom_api_request_duration_seconds_count', { route: '/domains', status: '429' }) >= refused,
    'and in the histogram under 429',
  );
});

t.test('a 4xx reply and a DNS failure: counted, and both deliveries wait in the queue as deferred', async (t) => {
  await new Promise((resolve) => setTimeout(resolve, 1100)); // the rate limit's second
  const later = await resend.emails.send({
    from: 'Acme <hello@example.test>',
    to: 'later@example.test',
    subject: 'Deferred by the server',
    text: 'later',
  });
  t.equal(later.error, null, JSON.stringify(later.error));
  await until(
    async () => sum((await scrape(metricsUrl)).samples, 'mailroom_deliveries_total', { outcome: 'deferred' }) >= 1,
    'a deferral',
  );
  dns.servfail = true;
  t.teardown(() => {
    dns.servfail = false;
  });
  const unresolved = await resend.emails.send({
    from: 'Acme <hello@example.test>',
    to: 'someone@other.test',
    subject: 'Deferred by DNS',
    text: 'later',
  });
  t.equal(unresolved.error, null, JSON.stringify(unresolved.error));
  await until(
    async () => sum((await scrape(metricsUrl)).samples, 'mailroom_deliveries_total', { outcome: 'deferred' }) >= 2,
    'a second deferral',
  );
  // The queue gauge is read from the database by the scrape, after the counters moved: the
  // second deferral's row may commit a moment after its counter (seen once in CI).
  await until(
    async () =>
      sum((await scrape(metricsUrl)).samples, 'mailroom_queue_deliveries', {
        state: 'deferred',
        lane: 'transactional',
      }) === 2,
    'both deliveries deferred in the queue',
  );
  const { samples } = await scrape(metricsUrl);
  t.equal(sum(samples, 'mailroom_smtp_replies_total', { class: '4xx', domain: 'example.test' }), 1, 'the 451');
  t.ok(sum(samples, 'mailroom_dns_lookup_errors_total', { type: 'mx' }) >= 1, "other.test's MX look-up failure");
  t.equal(
    sum(samples, 'mailroom_queue_deliveries', { state: 'deferred', lane: 'transactional' }),
    2,
    'the queue holds both as deferred',
  );
  t.equal(sum(samples, 'mailroom_deliveries_total', { outcome: 'delivered' }), 1, 'nothing else delivered');
});

t.test('a process run alone serves its own; a taken port costs the metrics, not the process', async (t) => {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', () => resolve()));
  t.teardown(() => new Promise<void>((resolve) => blocker.close(() => resolve())));
  const taken = String((blocker.address() as AddressInfo).port);

  const alone = spawnMailroom('api', { ...env, MAILROOM_METRICS_PORT: '0' });
  const aloneMetrics = logUrl(alone.child, 'metrics listening');
  t.teardown(() => stopChild(alone.child));
  await alone.ready;
  const { samples } = await scrape(await aloneMetrics);
  t.ok(samples.length > 0 && samples.every((s) => s.labels.process === 'api'), 'the api process names itself');
  t.notOk(
    samples.some((s) => s.name === 'mailroom_queue_deliveries'),
    'the queue is the MTA process’s to report',
  );

  const clash = spawnMailroom('api', { ...env, MAILROOM_METRICS_PORT: taken });
  const failure = logUrl(clash.child, 'metrics: could not listen; this process serves no /metrics').then(() => true);
  t.teardown(() => stopChild(clash.child));
  const url = await clash.ready;
  t.ok(await failure, 'the clash is logged');
  const health = await fetch(`${url}/health`);
  t.equal(health.status, 200, 'the API serves anyway');
  await health.text();
});
