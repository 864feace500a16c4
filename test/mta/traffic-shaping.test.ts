import type { ChildProcess } from 'node:child_process';
import t from 'tap';
import { startMtaFixture } from '../helpers/mta-fixture.js';
import { cliEnvFor, logUrl, spawnMailroom, stopChild } from '../helpers/spawn-mailroom.js';
import { TEST_REDIS_URL as REDIS_URL } from '../helpers/test-database.js';

/**
 * Traffic shaping end to end, across two `mailroom mta` processes sharing Redis: a destination
 * whose MX is a (fake) Gmail host answers like Gmail does when a new address sends too fast
 * (421-4.7.28 after some messages, then 421 4.7.0). Both processes slow down (the rate halves),
 * then pause, then recover, and every message is delivered once: none lost, none bounced.
 */
const PAUSE_SECONDS = 8;
const fx = await startMtaFixture({
  sinkHosts: ['127.0.0.40'],
  noWorker: true,
  mta: {
    leaseMs: 5000,
    shaping: {
      providers: [{ name: 'gmail', mx: ['google.com'], maxConnections: 2, messagesPerHour: 7200 }],
      reactions: [
        {
          id: 'test-pause',
          providers: ['gmail'],
          codes: [421],
          enhanced: ['4.7.0'],
          action: 'pause',
          pauseSeconds: PAUSE_SECONDS,
        },
      ],
      restoreSeconds: 2,
      settleSeconds: 1,
    },
  },
});
const children: ChildProcess[] = [];
t.teardown(async () => {
  await Promise.all(children.map((child) => stopChild(child, 'SIGTERM')));
  await fx.close();
});
const [sink] = fx.sinks as [(typeof fx.sinks)[0]];
// A Gmail address and a Google Workspace domain: both have Google's MX, so both get Gmail's rule.
fx.dns.add(
  { type: 'MX', name: 'gmail.test', exchange: 'gmail-smtp-in.l.google.com', priority: 5 },
  { type: 'MX', name: 'workspace.test', exchange: 'aspmx.l.google.com', priority: 1 },
  { type: 'A', name: 'gmail-smtp-in.l.google.com', address: '127.0.0.40' },
  { type: 'A', name: 'aspmx.l.google.com', address: '127.0.0.40' },
);
sink.faults = [
  {
    stage: 'data',
    code: 421,
    message:
      '4.7.28 [127.0.0.2] Our system has detected an unusual rate of unsolicited mail originating from your IP address.',
    afterMessages: 8,
    times: 1,
  },
  {
    stage: 'data',
    code: 421,
    message: '4.7.0 [127.0.0.2] Our system has detected that this message is suspicious: temporarily rate limited.',
    afterMessages: 20,
    times: 1,
  },
];

async function metricsOf(url: string): Promise<string> {
  return (await fetch(url)).text();
}

const sumOf = (text: string, series: RegExp) =>
  [...text.matchAll(series)].reduce((sum, match) => sum + Number(match[1]), 0);

t.test('slow, pause and recovery across two mta processes; nothing lost or bounced', async (t) => {
  const config = fx.app.runtime.config;
  const env = cliEnvFor(config, {
    MAILROOM_LOG_LEVEL: 'info',
    MAILROOM_DNS_SERVERS: config.dns.servers.join(','),
    MAILROOM_REDIS_URL: REDIS_URL,
    MAILROOM_REDIS_KEY_PREFIX: `shaping-test-${process.pid}:`,
    MAILROOM_METRICS_PORT: '0',
  });
  const metricsUrls: Array<Promise<string>> = [];
  for (let i = 0; i < 2; i++) {
    const { child, ready } = spawnMailroom('mta', env, 'mta worker started');
    metricsUrls.push(logUrl(child, 'metrics listening'));
    children.push(child);
    await ready;
  }

  const ids: string[] = [];
  for (let i = 0; i < 40; i++)
    ids.push(await fx.send({ to: [`person${i}@${i % 2 ? 'gmail.test' : 'workspace.test'}`] }));

  const { repository } = fx.app.runtime.services.shaping.actions;
  const deliveries = fx.app.runtime.services.deliveries.repository;
  await fx.waitFor(
    async () => {
      const states = (await Promise.all(ids.map((id) => deliveries.ofEmail(id)))).flat().map((d) => d.state);
      return states.every((state) => state === 'delivered');
    },
    'every delivery delivered',
    120_000,
  );

  const actions = (await repository.page({ limit: 50 })).reverse();
  const slow = actions.find((a) => a.kind === 'slow' && a.ruleId === 'gmail-rate-limit');
  t.ok(slow, 'the 421-4.7.28 slowed gmail from 127.0.0.2');
  t.equal(slow?.provider, 'gmail', 'the rule is the provider, whichever domain drew the reply');
  t.equal(slow?.egressIp, '127.0.0.2');
  t.equal(slow?.factor, 0.5, 'the rate halved');
  const pause = actions.find((a) => a.kind === 'pause');
  t.ok(pause, 'the 421 4.7.0 paused gmail from 127.0.0.2');
  t.equal(pause?.ruleId, 'test-pause');
  t.equal((pause!.endsAt.getTime() - pause!.startedAt.getTime()) / 1000, PAUSE_SECONDS, 'for the rule’s duration');

  // Each process reads the actions in force at most every 2 s, and a message may be on the
  // wire when the pause starts: from 4 s in until the end, nothing reaches the paused provider.
  const quietFrom = pause!.startedAt.getTime() + 4000;
  const during = sink.messages.filter((m) => m.at.getTime() > quietFrom && m.at < pause!.endsAt);
  t.equal(during.length, 0, 'nothing was sent while paused');
  t.ok(
    sink.messages.some((m) => m.at >= pause!.endsAt),
    'sending resumed after the pause (recovery)',
  );

  // Exactly once each, and no bounce.
  const received = sink.messages.flatMap((m) => m.to);
  t.equal(received.length, 40, 'every message arrived');
  t.equal(new Set(received).size, 40, 'each once');
  const bounced = (await fx.app.runtime.services.eventLog.list(fx.teamId, { limit: 1000 })).filter(
    (e) => e.type === 'email.bounced',
  );
  t.equal(bounced.length, 0, 'nothing bounced');

  // Both processes delivered, and held mail back while the pause stood.
  const texts = await Promise.all(metricsUrls.map(async (url) => metricsOf(await url)));
  for (const [i, text] of texts.entries())
    t.ok(
      sumOf(text, /^mailroom_deliveries_total\{[^}]*outcome="delivered"[^}]*\} (\d+)/gm) > 0,
      `process ${i + 1} delivered some of the mail`,
    );
  const waits = texts.reduce(
    (sum, text) => sum + sumOf(text, /^mailroom_shaping_waits_total\{[^}]*reason="pause"[^}]*\} (\d+)/gm),
    0,
  );
  t.ok(waits > 0, 'mail was put back to wait while paused (no attempt spent)');
  const reacted = texts.reduce((sum, text) => sum + sumOf(text, /^mailroom_shaping_actions_total\{[^}]*\} (\d+)/gm), 0);
  t.ok(reacted >= 2, 'the actions are counted in the metrics');

  // Recovery: the slowing ends on its own.
  const later = new Date(Date.now() + 60_000);
  const inForce = await fx.app.runtime.services.shaping.actions.repository.inForce(later);
  t.equal(inForce.length, 0, 'every action ends on its own');
});
