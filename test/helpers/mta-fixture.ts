import { Resolver } from 'node:dns/promises';
import type { TlsResultSink } from '../../core/sending/tls-reports/tls-result.types.js';
import type { Clock } from '../../lib/clock.js';
import { startDeliveryWorker, type DeliveryWorker } from '../../mta/queue/delivery-worker.js';
import { TestDnsServer } from './dns-server.js';
import { request } from './http.js';
import { SmtpSink } from './smtp-sink.js';
import { startTestApp, type TestApp } from './test-app.js';
import { addVerifiedDomain } from './verified-domain.js';

export type MtaFixture = {
  app: TestApp;
  dns: TestDnsServer;
  sinks: SmtpSink[];
  token: string;
  teamId: string;
  domainId: string;
  workers: DeliveryWorker[];
  /** mailauth's resolver option, over real DNS to the test server. */
  resolver: (name: string, type: string) => Promise<unknown>;
  send(body: Record<string, unknown>): Promise<string>;
  /** Waits until the email has every listed event type (in any order); returns its events, oldest first. */
  waitForEvents(
    emailId: string,
    types: string[],
    timeoutMs?: number,
  ): Promise<Array<{ type: string; data: Record<string, any> }>>;
  waitFor<T>(probe: () => Promise<T | undefined | false>, what: string, timeoutMs?: number): Promise<T>;
  close(): Promise<void>;
};

export type MtaFixtureOptions = {
  /** Loopback addresses of the recipients' mail servers (one sink each, same port); [] starts none. */
  sinkHosts?: string[];
  /**
   * The one port every destination listens on (`mta.port`). Default: the first sink's, picked
   * by the system. Required with `sinkHosts: []` (tests that run their own servers on it).
   */
  port?: number;
  starttls?: boolean[];
  /** Extra `mta` configuration. */
  mta?: Record<string, unknown>;
  /** Don't start a worker in this process (tests that spawn their own). */
  noWorker?: boolean;
  domain?: Record<string, unknown>;
  /** The appliance's clock (default: the system clock). */
  clock?: Clock;
  /** Other configuration sections (e.g. `submission`). */
  config?: Record<string, unknown>;
  /** The API's rate limit per team (default: out of the way). */
  rateLimitPerSecond?: number;
  /** Where the worker records each connection's TLS result (RFC 8460), as `runtime.tlsResults`. */
  tlsResults?: TlsResultSink;
  /** DANE on, with the test DNS server as the validating resolver (it sets AD for `dns.signed` names). */
  dane?: boolean;
};

/**
 * An appliance with a verified sending domain, a test DNS server, SMTP sinks on loopback
 * addresses and an MTA worker pointed at them: the real delivery path end to end. Egress
 * addresses are 127.0.0.2 and 127.0.0.3 (us-east-1).
 */
export async function startMtaFixture(options: MtaFixtureOptions = {}): Promise<MtaFixture> {
  const hosts = options.sinkHosts ?? ['127.0.0.10'];
  if (hosts.length === 0 && !options.port) throw new Error('startMtaFixture: give a port when no sink is started');
  const dns = await TestDnsServer.start();
  const sinks: SmtpSink[] = [];
  let port = options.port ?? 0;
  for (const [i, host] of hosts.entries()) {
    const sink = await SmtpSink.start(host, port, { starttls: options.starttls?.[i] });
    sinks.push(sink);
    port = sink.port;
  }
  const app = await startTestApp({
    clock: options.clock,
    rateLimitPerSecond: options.rateLimitPerSecond,
    env: { MAILROOM_DNS_SERVERS: dns.address },
    config: {
      ...options.config,
      mta: {
        hostname: 'mta.mailroom.test',
        port,
        regions: { 'us-east-1': { ips: [{ address: '127.0.0.2', helo: 'out2.mailroom.test' }] } },
        pollMs: 50,
        retrySchedule: [1],
        connectTimeoutMs: 3000,
        greetingTimeoutMs: 3000,
        socketTimeoutMs: 5000,
        ...(options.dane ? { dane: { resolvers: [dns.address] } } : {}),
        ...options.mta,
      },
    },
  });
  const team = await app.createTeam('MTA', 'unlimited');
  await app.runtime.services.teams.setTier(team.teamId, 2);
  const domainId = await addVerifiedDomain(app, dns, team.token, 'sender.test', options.domain);
  if (options.tlsResults) app.runtime.tlsResults = options.tlsResults;
  const workers = options.noWorker ? [] : [startDeliveryWorker(app.runtime)];
  const resolver = new Resolver();
  resolver.setServers([dns.address]);
  const events = app.runtime.services.eventLog;

  const waitFor = async <T>(
    probe: () => Promise<T | undefined | false>,
    what: string,
    timeoutMs = 45_000,
  ): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await probe();
      if (value) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  return {
    app,
    dns,
    sinks,
    token: team.token,
    teamId: team.teamId,
    domainId,
    workers,
    resolver: (name, type) => resolver.resolve(name, type as 'TXT'),
    async send(body) {
      const response = await request(app.url, '/emails', {
        method: 'POST',
        token: team.token,
        body: { from: 'Sender <hello@sender.test>', subject: 'Hello', text: 'Hello there', ...body },
      });
      if (response.status !== 200) throw new Error(`send refused: ${response.text}`);
      return response.body.id as string;
    },
    waitFor,
    async waitForEvents(emailId, types, timeoutMs) {
      return waitFor(
        async () => {
          const all = (await events.list(team.teamId, { limit: 1000 }))
            .filter((e) => e.data.email_id === emailId)
            .reverse();
          return types.every((type) => all.some((e) => e.type === type))
            ? all.map((e) => ({ type: e.type, data: e.data as Record<string, any> }))
            : undefined;
        },
        `events ${types.join(', ')} of ${emailId}`,
        timeoutMs,
      );
    },
    async close() {
      for (const worker of workers) await worker.stop();
      await app.close();
      for (const sink of sinks) await sink.close();
      await dns.close();
    },
  };
}
