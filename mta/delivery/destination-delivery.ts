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
    options.verifyEnforced,
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

  constructor(
    private readonly deps: {
      config: Config;
      lookup: DnsLookup;
      outcomes: OutcomeRecorder;
      ca?: string;
      logger: Logger;
    },
  ) {
    this.sessions = new SessionCache({
      idleMs: SESSION_IDLE_MS,
      maxAgeMs: SESSION_MAX_AGE_MS,
      maxIdlePerKey: deps.config.mta.perDestinationConcurrency,
    });
  }

  /** Sends every batch and resolves once every outcome is written. */
  async run(destination: string, batches: DeliveryBatch[]): Promise<void> {
    await (
      await this.send(destination, batches)
    ).settled;
  }

  /**
   * Sends every batch; resolves when the sending is over (the connection is free for the next
   * claim), with `settled`, which resolves once every outcome is written (or rejects with the
   * first failure to write one: then nothing more was sent, and the unsent deliveries are
   * claimed again when their leases run out).
   */
  async send(destination: string, batches: DeliveryBatch[]): Promise<{ settled: Promise<void> }> {
    const settling = new Settling();
    try {
      await this.sendTo(destination, batches, settling);
    } catch (err) {
      await settling.done().catch(() => undefined);
      throw err;
    }
    return { settled: settling.done() };
  }

  private async sendTo(destination: string, batches: DeliveryBatch[], settling: Settling): Promise<void> {
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
    if (route.kind === 'temporary')
      return settling.add(
        this.each(batches, (b) =>
          this.deps.outcomes.broken(b, b.deliveries, { ...context, transcript: route.detail }, route.detail),
        ),
      );
    if (route.kind === 'null-mx') {
      const message = `${destination} publishes a null MX (RFC 7505): it accepts no mail`;
      return settling.add(
        this.each(batches, (b) =>
          this.deps.outcomes.undeliverable(b, b.deliveries, { ...context, transcript: message }, message, true),
        ),
      );
    }
    if (route.kind === 'no-host')
      return settling.add(
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

    let pending = batches;
    let sessionsEnded = 0;
    const targets = route.hosts
      .flatMap((host) => host.addresses.map((address) => ({ host, address })))
      .slice(0, mxAddressLimit);
    let lastFailure = 'no MX host could be reached';
    let failureTranscript = '';
    for (const target of targets) {
      const options = this.sessionOptions(target.host, target.address, pending[0]!);
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
      pending = await this.sendAll(session, key, target.host, pending, startedAt, settling);
      if (pending.length === 0 || settling.failed) return;
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
  }

  /**
   * Sends batches over one session; returns those left when the connection broke before them.
   * Each outcome is settled while the next message goes out; after a failure to settle one,
   * nothing more is sent. The session goes back to the cache for the next claim, or is closed
   * if it broke.
   */
  private async sendAll(
    session: SmtpSession,
    key: string,
    host: MxHost,
    batches: DeliveryBatch[],
    startedAt: number,
    settling: Settling,
  ): Promise<DeliveryBatch[]> {
    let healthy = false;
    try {
      for (let i = 0; i < batches.length && !settling.failed; i++) {
        const batch = batches[i]!;
        if (!session.usable) {
          healthy = true;
          return batches.slice(i);
        }
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
      }
      healthy = true;
      return [];
    } finally {
      if (healthy) this.sessions.release(key, session);
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

  private sessionOptions(host: MxHost, address: string, batch: DeliveryBatch): SessionOptions {
    const { mta } = this.deps.config;
    return {
      address,
      mxHost: host.exchange,
      port: mta.port,
      localAddress: batch.egress.address,
      helo: batch.egress.helo,
      tls: batch.domain.tls,
      verifyEnforced: mta.verifyEnforcedTls,
      ca: this.deps.ca,
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
