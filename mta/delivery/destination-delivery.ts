import type { Delivery } from '../../core/sending/deliveries/delivery.types.js';
import type { Config } from '../../lib/config/config.schema.js';
import type { DnsLookup } from '../../lib/dns/dns-resolver.js';
import type { Logger } from '../../lib/logger.js';
import { retryWithBackoff } from '../../lib/retry-with-backoff.js';
import type { AttemptContext, DeliveryBatch } from './delivery-batch.js';
import { resolveRoute, type MxHost } from './mx-resolver.js';
import type { OutcomeRecorder } from './outcome-recorder.js';
import { SessionCache } from './session-cache.js';
import { Settling } from './settling.js';
import { SmtpSession, type SendResult, type SessionOptions } from './smtp-session.js';
import type { TlsResultSink } from '../../core/sending/tls-reports/tls-result.types.js';
import { TlsGate, type SessionCheck } from './tls-policy/tls-gate.js';
import type { TlsPolicyResolver } from './tls-policy/tls-policy.js';

/**
 * What traffic shaping asks of one destination's sending: a fresh connection every
 * messagesPerConnection messages, a pause between messages, and `admit`, asked before each
 * message (false: stop here, the rest goes back to wait).
 */
export type SendShape = {
  messagesPerConnection?: number;
  pacingMs?: number;
  admit?: (batch: DeliveryBatch) => Promise<boolean>;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const replyText = (reply: { code: number; text: string }) => reply.text || String(reply.code);

/** How long a connection waits idle for the next claim to the same server, and how long one is reused at most. */
const SESSION_IDLE_MS = 5000;
const SESSION_MAX_AGE_MS = 300_000;

/**
 * Waits between tries to record an outcome (about 30 s in all, well inside the lease, which the
 * worker renews meanwhile). The message has left: if its outcome is never recorded, the
 * delivery is claimed again when its lease runs out and the recipient gets it twice. A database
 * that fails over or restarts is back within these. Recording again is harmless: deliveries
 * already settled are skipped.
 */
const SETTLE_RETRY_DELAYS_MS = [250, 500, 1000, 2000, 4000, 8000, 16000];

/** Connections are shared only between uses with the same server, egress address, HELO and TLS settings. */
const sessionKey = (options: SessionOptions) =>
  [
    options.address,
    options.port,
    options.mxHost,
    options.localAddress,
    options.helo,
    options.tls,
    options.requireTls,
    options.verifyEnforced,
    options.check?.key ?? '',
  ].join('|');

/**
 * Delivers batches bound for one destination domain from one egress address, reusing one
 * connection for all of them (and keeping it briefly for the next claim to that server). MX
 * hosts are tried in preference order: a host that cannot be reached or refuses the connection
 * passes the remaining batches to the next one; a reply to a message (accept, refuse) is final
 * for that attempt.
 */
export class DestinationDelivery {
  private readonly sessions: SessionCache;
  private readonly tls: TlsGate;

  constructor(
    private readonly deps: {
      config: Config;
      lookup: DnsLookup;
      outcomes: OutcomeRecorder;
      ca?: string;
      logger: Logger;
      /** Destination TLS policies (MTA-STS, DANE); none: opportunistic TLS as the sending domain says. */
      tlsPolicy?: TlsPolicyResolver | null;
      /** Where each connection's TLS result goes (RFC 8460 reports). */
      tlsResults?: TlsResultSink;
    },
  ) {
    this.tls = new TlsGate(deps.tlsPolicy ?? null, deps.tlsResults, deps.ca);
    this.sessions = new SessionCache({
      idleMs: SESSION_IDLE_MS,
      maxAgeMs: SESSION_MAX_AGE_MS,
      maxIdlePerKey: deps.config.mta.perDestinationConcurrency,
    });
  }

  /** Sends every batch and resolves once every outcome is written; returns those shaping held back. */
  async run(destination: string, batches: DeliveryBatch[], shape: SendShape = {}): Promise<DeliveryBatch[]> {
    const sent = await this.send(destination, batches, shape);
    await sent.settled;
    return sent.unsent;
  }

  /**
   * Sends every batch; resolves when the sending is over (the connection is free for the next
   * claim), with `settled`, which resolves once every outcome is written (or rejects with the
   * first failure to write one: then nothing more was sent, and the unsent deliveries are
   * claimed again when their leases run out), and `unsent`: the batches `shape.admit` held back
   * (never offered to the server; the caller puts them back to wait).
   */
  async send(
    destination: string,
    batches: DeliveryBatch[],
    shape: SendShape = {},
  ): Promise<{ settled: Promise<void>; unsent: DeliveryBatch[] }> {
    const settling = new Settling();
    let unsent: DeliveryBatch[];
    try {
      unsent = await this.sendTo(destination, batches, settling, shape);
    } catch (err) {
      await settling.done().catch(() => undefined);
      throw err;
    }
    return { settled: settling.done(), unsent };
  }

  private async sendTo(
    destination: string,
    batches: DeliveryBatch[],
    settling: Settling,
    shape: SendShape,
  ): Promise<DeliveryBatch[]> {
    const startedAt = Date.now();
    const egress = batches[0]!.egress;
    const { mxAddressLimit, mxSessionLimit } = this.deps.config.mta;
    const route = await resolveRoute(
      destination,
      this.deps.lookup,
      egress.address.includes(':') ? 6 : 4,
      Math.random,
      mxAddressLimit,
    );
    const context: AttemptContext = { egressIp: egress.address, mxHost: null, transcript: '', startedAt };
    if (route.kind === 'temporary') {
      settling.add(
        this.each(batches, (b) =>
          this.deps.outcomes.broken(b, b.deliveries, { ...context, transcript: route.detail }, route.detail),
        ),
      );
      return [];
    }
    if (route.kind === 'null-mx') {
      const message = `${destination} publishes a null MX (RFC 7505): it accepts no mail`;
      settling.add(
        this.each(batches, (b) =>
          this.deps.outcomes.undeliverable(b, b.deliveries, { ...context, transcript: message }, message, true),
        ),
      );
      return [];
    }
    if (route.kind === 'no-host') {
      settling.add(
        this.each(batches, (b) =>
          this.deps.outcomes.undeliverable(
            b,
            b.deliveries,
            { ...context, transcript: route.detail },
            route.detail,
            true,
          ),
        ),
      );
      return [];
    }

    let pending = batches;
    let sessionsEnded = 0;
    const targets = route.hosts
      .flatMap((host) => host.addresses.map((address) => ({ host, address })))
      .slice(0, mxAddressLimit);
    let lastFailure = 'no MX host could be reached';
    let failureTranscript = '';
    const tls = await this.tls.forDestination(destination, pending[0]!.domain.tls);
    for (const target of targets) {
      const tlsTarget = { mxHost: target.host.exchange, address: target.address, egressIp: egress.address };
      const mxTls = await tls?.forMx(target.host.exchange);
      // An MX outside an enforced MTA-STS policy (or whose TLSA state is unknown) is not tried.
      const refused = this.tls.refused(mxTls, tlsTarget);
      if (refused) {
        lastFailure = refused;
        failureTranscript += `${failureTranscript ? '\n' : ''}* ${target.host.exchange} [${target.address}]: ${refused}`;
        continue;
      }
      const check = this.tls.sessionCheck(mxTls, tlsTarget);
      const options = this.sessionOptions(target.host, target.address, pending[0]!, check);
      const key = sessionKey(options);
      let session = await this.sessions.take(key);
      if (session)
        session.transcript.add(
          `* reusing the connection to ${target.host.exchange} [${target.address}]:${options.port} from ${options.localAddress}`,
        );
      else {
        const opened = await SmtpSession.open(options);
        if ('error' in opened) {
          lastFailure = describe(opened.error);
          failureTranscript += `${failureTranscript ? '\n' : ''}* ${target.host.exchange} [${target.address}]: ${lastFailure}`;
          continue;
        }
        session = opened.session;
        this.sessions.opening(session);
      }
      const outcome = await this.sendAll(session, key, target.host, pending, startedAt, settling, shape);
      pending = outcome.left;
      if (outcome.heldBack || pending.length === 0 || settling.failed) return outcome.heldBack ? pending : [];
      // The connection ended (421, hang-up, time-out) with messages still to send: they were
      // never offered, which is not the same as an unreachable host.
      lastFailure = `ECONNRESET: the connection to ${target.host.exchange} ended before this message was sent`;
      failureTranscript += `${failureTranscript ? '\n' : ''}* ${target.host.exchange} [${target.address}]: the connection ended before this message was sent`;
      if (++sessionsEnded >= mxSessionLimit) break;
    }
    settling.add(
      this.each(pending, (b) =>
        this.deps.outcomes.broken(b, b.deliveries, { ...context, transcript: failureTranscript }, lastFailure),
      ),
    );
    return [];
  }

  /**
   * Sends batches over one session; returns those left when the connection broke before them,
   * or when shaping held them back (`heldBack`). Each outcome is settled while the next message
   * goes out; after a failure to settle one, nothing more is sent. The session goes back to the
   * cache for the next claim, or is closed if it broke or carried its share of messages.
   */
  private async sendAll(
    first: SmtpSession,
    key: string,
    host: MxHost,
    batches: DeliveryBatch[],
    startedAt: number,
    settling: Settling,
    shape: SendShape,
  ): Promise<{ left: DeliveryBatch[]; heldBack: boolean }> {
    let session = first;
    let healthy = false;
    try {
      for (let i = 0; i < batches.length && !settling.failed; i++) {
        const batch = batches[i]!;
        if (!session.usable) {
          healthy = true;
          return { left: batches.slice(i), heldBack: false };
        }
        if (shape.admit && !(await shape.admit(batch))) {
          healthy = true;
          return { left: batches.slice(i), heldBack: true };
        }
        if (i > 0 && shape.pacingMs) await sleep(shape.pacingMs);
        const batchStarted = i === 0 ? startedAt : Date.now();
        const result = await session.send(
          { from: batch.message.envelopeFrom, to: batch.deliveries.map((d) => d.recipient) },
          batch.message.bytes,
        );
        // Each attempt keeps its own part of the conversation (the first one also the connect or reuse).
        const context: AttemptContext = {
          egressIp: batch.egress.address,
          mxHost: host.exchange,
          transcript: session.transcript.take(),
          startedAt: batchStarted,
        };
        settling.add(
          retryWithBackoff(
            () => this.settle(batch, result, context),
            SETTLE_RETRY_DELAYS_MS,
            (err, retryInMs) =>
              this.deps.logger.warn(
                { err, emailId: batch.email.id, retryInMs },
                'could not record a delivery outcome; trying again',
              ),
          ),
        );
        // A transaction that ended without DATA is still open on the server: RSET before the next.
        if ((result.kind !== 'sent' || result.accepted.length === 0) && session.usable) await session.reset();
        // A provider that wants a fresh connection every N messages gets one.
        if (shape.messagesPerConnection && ++session.messagesSent >= shape.messagesPerConnection) {
          session.close();
          if (i + 1 >= batches.length) return { left: [], heldBack: false };
          const reopened = await SmtpSession.open(session.options);
          if ('error' in reopened) return { left: batches.slice(i + 1), heldBack: false };
          session = reopened.session;
          this.sessions.opening(session);
        }
      }
      healthy = true;
      return { left: [], heldBack: false };
    } finally {
      if (healthy && session.usable) this.sessions.release(key, session);
      else session.close();
    }
  }

  /** Closes the connections kept for reuse (the worker stops). */
  close(): void {
    this.sessions.closeAll();
  }

  private async settle(batch: DeliveryBatch, result: SendResult, context: AttemptContext): Promise<void> {
    const { outcomes } = this.deps;
    if (result.kind === 'broken')
      return outcomes.broken(batch, batch.deliveries, context, `${result.stage}: ${result.error}`);
    if (result.kind === 'refused') return outcomes.replied(batch, batch.deliveries, context, replyText(result.reply));
    const byRecipient = new Map(batch.deliveries.map((d) => [d.recipient.toLowerCase(), d]));
    const accepted = result.accepted
      .map((r) => byRecipient.get(r.toLowerCase()))
      .filter((d): d is Delivery => Boolean(d));
    await outcomes.delivered(batch, accepted, context, replyText(result.response));
    for (const { recipient, reply } of result.rejected) {
      const delivery = byRecipient.get(recipient.toLowerCase());
      if (delivery) await outcomes.replied(batch, [delivery], context, replyText(reply));
    }
  }

  private sessionOptions(host: MxHost, address: string, batch: DeliveryBatch, check?: SessionCheck): SessionOptions {
    const { mta } = this.deps.config;
    return {
      address,
      mxHost: host.exchange,
      port: mta.port,
      localAddress: batch.egress.address,
      helo: batch.egress.helo,
      tls: batch.domain.tls,
      requireTls: batch.provider?.limits.tlsRequired ?? false,
      verifyEnforced: mta.verifyEnforcedTls,
      ca: this.deps.ca,
      ...(check ? { check } : {}),
      connectTimeoutMs: mta.connectTimeoutMs,
      greetingTimeoutMs: mta.greetingTimeoutMs,
      socketTimeoutMs: mta.socketTimeoutMs,
      transcriptMaxBytes: mta.transcriptMaxBytes,
    };
  }

  private async each(batches: DeliveryBatch[], work: (batch: DeliveryBatch) => Promise<void>): Promise<void> {
    for (const batch of batches) await work(batch);
  }
}

function describe(error: SendResult & { kind: 'refused' | 'broken' }): string {
  return error.kind === 'refused' ? `${error.stage}: ${error.reply.text}` : `${error.stage}: ${error.error}`;
}
