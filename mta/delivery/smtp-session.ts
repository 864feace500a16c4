import SMTPConnection from 'nodemailer/lib/smtp-connection';
import { TLSSocket } from 'node:tls';
import type { SessionCheck } from './tls-policy/tls-gate.js';
import { chainOf, type TlsPeer } from './tls-policy/tls-verdict.js';
import { Transcript } from './transcript.js';

export type SessionOptions = {
  /** The address to connect to (resolved), and the MX name (TLS server name, transcript). */
  address: string;
  mxHost: string;
  port: number;
  localAddress: string;
  helo: string;
  tls: 'opportunistic' | 'enforced';
  /** STARTTLS required without a certificate check (a provider's rule: `tlsRequired`). */
  requireTls?: boolean;
  /** Verify the certificate when TLS is enforced. */
  verifyEnforced: boolean;
  ca?: string;
  /**
   * A destination TLS policy (MTA-STS, DANE; tls-policy/): STARTTLS required or not, the CAs
   * Node judges the chain by, and a check of the connection once open. The certificate is
   * never refused during the handshake: `verify` judges it, so that the failure is reported.
   */
  check?: SessionCheck;
  connectTimeoutMs: number;
  greetingTimeoutMs: number;
  socketTimeoutMs: number;
  transcriptMaxBytes: number;
};

/** A server reply: code, enhanced code when present, text. */
export type Reply = { code: number; text: string };

export type SendResult =
  | { kind: 'sent'; accepted: string[]; rejected: Array<{ recipient: string; reply: Reply }>; response: Reply }
  /** The whole message was refused (MAIL FROM, all RCPTs, or the reply after DATA). */
  | { kind: 'refused'; reply: Reply; stage: string }
  /** The connection failed: no reply to classify (time-out, reset, TLS). */
  | { kind: 'broken'; error: string; stage: string };

const toReply = (response: unknown, fallbackCode = 0): Reply => {
  const text = String(response ?? '').trim();
  const code = Number(/^(\d{3})/.exec(text)?.[1] ?? fallbackCode);
  return { code, text };
};

const rejection = (err: unknown) => {
  const e = err as { recipient?: string; response?: string; responseCode?: number };
  return { recipient: String(e.recipient ?? ''), reply: toReply(e.response, e.responseCode) };
};

/**
 * One SMTP connection to a recipient's mail server, from a chosen egress address, through
 * nodemailer's SMTP connection (no pooling transport: we decide what shares a connection).
 * STARTTLS is opportunistic (any certificate; plain text if the upgrade fails) or enforced
 * (no STARTTLS, or a bad certificate when verification is on, fails the attempt).
 */
export class SmtpSession {
  readonly transcript: Transcript;
  /** Messages offered over this connection (traffic shaping opens a new one after a provider's share). */
  messagesSent = 0;
  private connection: SMTPConnection;
  private closed = false;

  private constructor(readonly options: SessionOptions) {
    this.transcript = new Transcript(options.transcriptMaxBytes);
    const enforced = options.tls === 'enforced' || Boolean(options.requireTls) || Boolean(options.check?.requireTls);
    this.connection = new SMTPConnection({
      host: options.address,
      port: options.port,
      servername: options.mxHost,
      localAddress: options.localAddress,
      name: options.helo,
      requireTLS: enforced,
      opportunisticTLS: !enforced,
      tls: {
        rejectUnauthorized: options.tls === 'enforced' && options.verifyEnforced,
        servername: options.mxHost,
        ...(options.check?.ca ? { ca: options.check.ca } : options.ca ? { ca: options.ca } : {}),
      },
      connectionTimeout: options.connectTimeoutMs,
      greetingTimeout: options.greetingTimeoutMs,
      socketTimeout: options.socketTimeoutMs,
      // Loopback and private destinations are valid targets for an MTA (and for tests).
      allowInternalNetworkInterfaces: true,
      logger: this.transcript.logger(),
      transactionLog: true,
    });
    this.connection.on('error', (err: Error) => this.transcript.add(`* error: ${err.message}`));
    this.connection.on('end', () => (this.closed = true));
  }

  /** Connects and greets; a refusal (421, 554 greeting) or failure comes back as a value. */
  static async open(
    options: SessionOptions,
  ): Promise<{ session: SmtpSession } | { error: SendResult & { kind: 'refused' | 'broken' } }> {
    const session = new SmtpSession(options);
    session.transcript.add(
      `* connecting to ${options.mxHost} [${options.address}]:${options.port} from ${options.localAddress}`,
    );
    const failure = await session.whileConnected<(SendResult & { kind: 'refused' | 'broken' }) | null>(
      'CONNECT',
      (resolve) => {
        session.connection.connect((err?: Error & { response?: string; responseCode?: number; code?: string }) => {
          if (!err) return resolve(null);
          resolve(
            err.responseCode
              ? { kind: 'refused', reply: toReply(err.response, err.responseCode), stage: 'CONNECT' }
              : { kind: 'broken', error: `${err.code ?? 'ERROR'}: ${err.message}`, stage: 'CONNECT' },
          );
        });
      },
    );
    // Under a destination TLS policy, a connection that fails it is closed before any MAIL FROM.
    const refusal = failure ? null : (options.check?.verify(session.tlsPeer()) ?? null);
    if (failure)
      options.check?.openFailed(`${failure.stage}: ${'error' in failure ? failure.error : failure.reply.text}`);
    if (failure || refusal) {
      session.close();
      if (refusal) session.transcript.add(`* ${refusal}`);
      return { error: failure ?? { kind: 'broken', error: refusal!, stage: 'STARTTLS' } };
    }
    return { session };
  }

  /** The TLS the connection ended up with (after STARTTLS), for the destination's policy check. */
  tlsPeer(): TlsPeer {
    const socket = (this.connection as unknown as { _socket?: TLSSocket })._socket;
    const secure = Boolean((this.connection as unknown as { secure?: boolean }).secure) && socket instanceof TLSSocket;
    if (!secure) return { secure: false, chain: [], certificate: null, authorized: false, authorizationError: null };
    const certificate = socket.getPeerCertificate(true);
    const present = certificate && Object.keys(certificate).length > 0 ? certificate : null;
    return {
      secure,
      chain: chainOf(present),
      certificate: present,
      authorized: socket.authorized,
      authorizationError: socket.authorizationError ? String(socket.authorizationError) : null,
    };
  }

  get usable(): boolean {
    return !this.closed && !(this.connection as unknown as { destroyed?: boolean }).destroyed;
  }

  /** One message to some recipients; per-recipient refusals come back in `rejected`. */
  send(envelope: { from: string; to: string[] }, message: Buffer): Promise<SendResult> {
    return this.whileConnected<SendResult>('DATA', (resolve) => {
      this.connection.send({ from: envelope.from, to: envelope.to, size: message.length }, message, (err, info) => {
        if (!err && info) {
          return resolve({
            kind: 'sent',
            accepted: info.accepted.map(String),
            rejected: (info.rejectedErrors ?? []).map(rejection),
            response: toReply(info.response, 250),
          });
        }
        const e = err as Error & {
          response?: string;
          responseCode?: number;
          code?: string;
          command?: string;
          rejectedErrors?: unknown[];
        };
        // Every recipient refused: each keeps its own reply (some may be 4xx, some 5xx).
        if (e.rejectedErrors?.length)
          return resolve({
            kind: 'sent',
            accepted: [],
            rejected: e.rejectedErrors.map(rejection),
            response: toReply(e.response, e.responseCode),
          });
        if (e.responseCode)
          return resolve({ kind: 'refused', reply: toReply(e.response, e.responseCode), stage: e.command ?? 'DATA' });
        resolve({ kind: 'broken', error: `${e.code ?? 'ERROR'}: ${e.message}`, stage: e.command ?? 'DATA' });
      });
    });
  }

  /**
   * Runs one step of the conversation. nodemailer reports a socket failure (refused, reset,
   * time-out, TLS) as an 'error' event rather than through the step's callback, and a server
   * that hangs up as 'end': whichever comes first settles the step, exactly once.
   */
  private whileConnected<T>(stage: string, step: (resolve: (value: T) => void) => void): Promise<T> {
    return new Promise<T>((resolve) => {
      let settled = false;
      const finish = (value: T) => {
        if (settled) return;
        settled = true;
        this.connection.off('error', onError);
        this.connection.off('end', onEnd);
        resolve(value);
      };
      // err.command names the step that failed (EHLO, STARTTLS, MAIL FROM...), when there is one.
      const onError = (err: Error & { response?: string; responseCode?: number; code?: string; command?: string }) => {
        const at = err.command ?? stage;
        finish(
          (err.responseCode
            ? { kind: 'refused', reply: toReply(err.response, err.responseCode), stage: at }
            : { kind: 'broken', error: `${err.code ?? 'ERROR'}: ${err.message}`, stage: at }) as T,
        );
      };
      // After a 421 nodemailer closes (emitting 'end') before it hands the reply to the step's
      // callback: wait a turn so the reply, not a bare hang-up, settles the step.
      const onEnd = () =>
        setImmediate(() =>
          finish({ kind: 'broken', error: 'ECONNRESET: the server closed the connection without a reply', stage } as T),
        );
      this.connection.on('error', onError);
      this.connection.on('end', onEnd);
      step(finish);
    });
  }

  /** RSET between messages on a reused connection. */
  reset(): Promise<boolean> {
    return new Promise((resolve) => this.connection.reset((err) => resolve(!err)));
  }

  /**
   * RSET on a connection that sat idle, before it is used again: false when it is gone. Unlike
   * reset(), a hang-up or socket error settles it too (nodemailer may never call back then).
   */
  async probe(): Promise<boolean> {
    if (!this.usable) return false;
    const result = await this.whileConnected<boolean | SendResult>('RSET', (resolve) =>
      this.connection.reset((err) => resolve(!err)),
    );
    return result === true && this.usable;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.connection.quit();
    } catch {
      this.connection.close();
    }
  }
}
