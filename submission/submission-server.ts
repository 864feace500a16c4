import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import {
  SMTPServer,
  type SMTPServerAuthentication,
  type SMTPServerDataStream,
  type SMTPServerSession,
} from 'smtp-server';
import type { Runtime } from '../app/runtime.js';
import { AuthAttemptRefused, AuthFailureThrottle } from './auth-failure-throttle.js';
import { MessageSubmitter } from './message-submitter.js';
import { replyError, smtpReplyFor } from './smtp-replies.js';
import { submissionPorts } from './submission-ports.js';

/** Recipients of one message at most, as POST /emails allows (to, cc and bcc together). */
const MAX_RECIPIENTS = 50;

export type SubmissionServer = { port: number; tlsPort: number | null; close(): Promise<void> };

/** What a session knows once AUTH passed: the key's token (authenticated again per message). */
type SessionUser = { token: string };

/**
 * SMTP submission (RFC 6409) for applications that speak only SMTP: AUTH PLAIN or LOGIN with
 * any user name and an API key as the password, after STARTTLS unless
 * `submission.allowInsecureAuth` (AUTH is advertised only then), failed attempts limited across
 * connections (see AuthFailureThrottle); an implicit-TLS port beside it when a certificate is
 * configured. Each message goes through the same acceptance as POST /emails (see
 * MessageSubmitter) and is answered `250 2.0.0 Ok: queued as <email id>` only once it is
 * durably accepted; a refusal gets the SMTP code that matches the API's answer.
 */
export async function startSubmissionServer(runtime: Runtime): Promise<SubmissionServer> {
  const { config, logger, services, clock } = runtime;
  const settings = config.submission;
  const ports = submissionPorts(config);
  const submitter = new MessageSubmitter({ services, clock, logger });
  const authFailures = new AuthFailureThrottle(runtime.kv, {
    perCredential: settings.authFailuresPerCredential,
    perSource: settings.authFailuresPerSource,
    windowSeconds: settings.authFailureWindowSeconds,
  });
  const tls =
    settings.certFile && settings.keyFile
      ? { cert: readFileSync(settings.certFile), key: readFileSync(settings.keyFile) }
      : undefined;
  // The one warning about it: smtp-server's own (a raw line on stderr) is off with `logger: false`.
  if (!tls)
    logger.warn(
      { settings: ['submission.certFile', 'submission.keyFile'] },
      "submission: no certificate configured: STARTTLS uses smtp-server's built-in certificate, whose private key is public (no protection), and the implicit-TLS port stays closed; set submission.certFile and submission.keyFile",
    );

  const options = (secure: boolean) => ({
    secure,
    ...(tls ?? {}),
    logger: false,
    name: config.mta.hostname,
    banner: 'Mailroom submission',
    size: settings.maxMessageBytes,
    rejectOversized: true,
    authMethods: ['PLAIN', 'LOGIN'],
    allowInsecureAuth: settings.allowInsecureAuth,
    maxClients: settings.maxClients,
    // AUTH is offered (in EHLO) only where it may be used: after STARTTLS on the plain port
    // unless allowInsecureAuth. A session with AUTH disabled is not held to authentication by
    // smtp-server, so onMailFrom refuses it itself.
    onConnect(session: SMTPServerSession, callback: (err?: Error | null) => void) {
      if (!session.secure && !settings.allowInsecureAuth) session.disabledCommands = ['AUTH'];
      callback();
    },
    onSecure(_socket: unknown, session: SMTPServerSession, callback: (err?: Error | null) => void) {
      session.disabledCommands = undefined;
      callback();
    },
    // Failed attempts are limited across connections (AuthFailureThrottle); then the same checks
    // as the API's, per message: a failure of ours is 451, never 5xx.
    onAuth(
      auth: SMTPServerAuthentication,
      session: SMTPServerSession,
      callback: (err: Error | null | undefined, response?: { user: SessionUser }) => void,
    ) {
      const token = auth.password ?? '';
      const wrongCredential = (err: unknown) => smtpReplyFor(err).code === 535;
      authFailures
        .attempt(token, session.remoteAddress, () => submitter.authenticate(token), wrongCredential)
        .then(
          () => callback(null, { user: { token } }),
          (err: unknown) => {
            if (err instanceof AuthAttemptRefused)
              logger.info({ client: clientOf(session) }, 'submission: AUTH refused, too many failed attempts');
            callback(replyError(err instanceof AuthAttemptRefused ? err.reply : smtpReplyFor(err)));
          },
        );
    },
    onMailFrom(_address: unknown, session: SMTPServerSession, callback: (err?: Error | null) => void) {
      if (!session.user)
        return callback(
          replyError({
            code: 530,
            message: session.secure
              ? '5.7.0 Authentication required'
              : '5.7.0 Must issue a STARTTLS command first, then AUTH',
          }),
        );
      submitter.admit(userOf(session).token, clientOf(session)).then(
        () => callback(),
        (err: unknown) => callback(replyError(smtpReplyFor(err))),
      );
    },
    onRcptTo(_address: unknown, session: SMTPServerSession, callback: (err?: Error | null) => void) {
      if (session.envelope.rcptTo.length >= MAX_RECIPIENTS)
        return callback(
          replyError({ code: 452, message: `4.5.3 Too many recipients: at most ${MAX_RECIPIENTS} per message` }),
        );
      callback();
    },
    onData(
      stream: SMTPServerDataStream,
      session: SMTPServerSession,
      callback: (err?: Error | null, message?: string) => void,
    ) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => {
        if (!stream.sizeExceeded) chunks.push(chunk);
      });
      stream.once('error', (err) => callback(err));
      stream.once('end', () => {
        // rejectOversized answers 552 itself; the parts read so far are dropped.
        if (stream.sizeExceeded)
          return callback(
            replyError({ code: 552, message: `5.3.4 Message too large: at most ${settings.maxMessageBytes} bytes` }),
          );
        const message = {
          token: userOf(session).token,
          client: clientOf(session),
          recipients: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          smtpUtf8: Boolean((session.envelope as { smtpUtf8?: boolean }).smtpUtf8),
          raw: Buffer.concat(chunks),
        };
        submitter.submit(message).then(
          (id) => callback(null, `2.0.0 Ok: queued as ${id}`),
          (err: unknown) => {
            const reply = smtpReplyFor(err);
            if (reply.code === 451) logger.error({ err }, 'submission: message not accepted (our failure)');
            callback(replyError(reply));
          },
        );
      });
    },
  });

  const plain = new SMTPServer(options(false));
  const implicit = tls ? new SMTPServer(options(true)) : null;
  for (const server of [plain, implicit])
    server?.on('error', (err) => logger.warn({ err }, 'submission: connection error'));
  const listen = (server: SMTPServer, port: number) =>
    new Promise<number>((resolve, reject) => {
      server.server.once('error', reject);
      server.listen(port, settings.host, () => resolve((server.server.address() as AddressInfo).port));
    });
  const port = await listen(plain, ports.port);
  const tlsPort = implicit ? await listen(implicit, ports.tlsPort) : null;
  logger.info({ host: settings.host, port, tlsPort }, 'submission listening');
  return {
    port,
    tlsPort,
    async close() {
      await Promise.all(
        [plain, implicit].map((server) =>
          server ? new Promise<void>((resolve) => server.close(() => resolve())) : undefined,
        ),
      );
    },
  };
}

function userOf(session: SMTPServerSession): SessionUser {
  return session.user as unknown as SessionUser;
}

/** The client as the request log shows it: its EHLO name and address. */
function clientOf(session: SMTPServerSession): string {
  return `${session.clientHostname || session.hostNameAppearsAs || 'unknown'} [${session.remoteAddress}]`;
}
