import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Config } from '../../../lib/config/config.schema.js';
import { result, type CheckResult, type CheckStatus } from './doctor.types.js';
import { readEhlo, SmtpProbeClient } from './smtp-probe.js';

/** Where this node's submission server listens: `tlsPort` null when no implicit-TLS port is open. */
export type SubmissionTarget = { host: string; port: number; tlsPort: number | null };

const HELO = 'doctor.mailroom.invalid';
const NOT_RUNNING = new Set(['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH']);

/** The address to connect to for a server listening on `host` (a wildcard listens on loopback too). */
export function probeHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::' || host === '[::]') return '::1';
  return host;
}

const where = (host: string, port: number) => (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`);
const replyText = (reply: { code: number; lines: string[] }) => `${reply.code} ${reply.lines.join(' / ')}`;

/** The certificate presented, against the configured one. */
function certificateNote(
  settings: Config['submission'],
  presented: X509Certificate | undefined,
): { status: CheckStatus; text: string } {
  if (!presented) return { status: 'fail', text: 'the TLS session presented no certificate' };
  const until = `valid until ${new Date(presented.validTo).toISOString()}`;
  if (!settings.certFile)
    return {
      status: 'warn',
      text: `no certificate configured, so it presents smtp-server's built-in one, whose private key is public (clients that verify refuse it; it protects nothing): set submission.certFile and submission.keyFile`,
    };
  let configured: X509Certificate;
  try {
    configured = new X509Certificate(readFileSync(settings.certFile));
  } catch {
    // submission_certificate reports the unreadable file.
    return {
      status: 'warn',
      text: `presents a certificate (${until}); ${settings.certFile} could not be read to compare`,
    };
  }
  if (configured.fingerprint256 !== presented.fingerprint256)
    return {
      status: 'warn',
      text: `presents a certificate other than ${settings.certFile} (${until}): restart submission after replacing the file`,
    };
  return { status: 'ok', text: `presents ${settings.certFile} (${until})` };
}

/** A connection that could not be made: nothing listening is a warning (not run here), anything else fails. */
function unreachable(check: string, subject: string, err: unknown): CheckResult {
  const code = (err as NodeJS.ErrnoException).code;
  if ((code && NOT_RUNNING.has(code)) || /no connection within/.test((err as Error).message))
    return result(
      check,
      subject,
      'warn',
      `nothing answers at ${subject} (${code ?? (err as Error).message}): submission does not run on this node, or listens elsewhere (submission.host, submission.port, submission.tlsPort)`,
    );
  return result(check, subject, 'fail', `could not connect: ${(err as Error).message}`);
}

/**
 * The plain submission port as a client meets it: a 220 greeting, an EHLO reply (multi-line)
 * offering STARTTLS and, unless submission.allowInsecureAuth, no AUTH yet; after STARTTLS and a
 * second EHLO, AUTH. The certificate presented is compared with submission.certFile.
 */
export async function checkStarttls(
  settings: Config['submission'],
  target: SubmissionTarget,
  timeoutMs: number,
): Promise<CheckResult> {
  const check = 'submission_starttls';
  const host = probeHost(target.host);
  const subject = where(host, target.port);
  if (target.port === 0)
    return result(
      check,
      'submission.port',
      'warn',
      'submission.port is 0 (a free port at each start): nothing to probe',
    );
  let client: SmtpProbeClient;
  try {
    client = await SmtpProbeClient.open({ host, port: target.port }, timeoutMs);
  } catch (err) {
    return unreachable(check, subject, err);
  }
  const fail = (detail: string) => result(check, subject, 'fail', detail);
  try {
    const plain = await readEhlo(client, HELO, { greeting: true });
    if (plain.greeting.code !== 220) return fail(`greets with ${replyText(plain.greeting)}`);
    if (plain.ehlo.code !== 250) return fail(`answers EHLO with ${replyText(plain.ehlo)}`);
    if (!plain.extensions.has('STARTTLS'))
      return fail('its EHLO reply offers no STARTTLS: passwords and mail would cross the network in clear');
    const authBefore = plain.extensions.has('AUTH');
    if (authBefore && !settings.allowInsecureAuth)
      return fail('offers AUTH before STARTTLS: clients may send their API key in clear');
    const started = await client.command('STARTTLS');
    if (started.code !== 220) return fail(`answers STARTTLS with ${replyText(started)}`);
    await client.upgrade();
    const secured = await readEhlo(client, HELO, { greeting: false });
    if (secured.ehlo.code !== 250) return fail(`answers EHLO after STARTTLS with ${replyText(secured.ehlo)}`);
    if (!secured.extensions.has('AUTH')) return fail('offers no AUTH after STARTTLS: clients cannot log in');
    const cert = certificateNote(settings, client.peerCertificate());
    const auth = `AUTH ${secured.authMechanisms.join(' ')}`;
    const status: CheckStatus = cert.status === 'fail' ? 'fail' : authBefore ? 'warn' : cert.status;
    return result(
      check,
      subject,
      status,
      `STARTTLS offered; ${auth} after it, ${authBefore ? 'and before it too (submission.allowInsecureAuth: development only)' : 'not before'}; ${cert.text}`,
    );
  } catch (err) {
    return fail(`the SMTP conversation broke off: ${(err as Error).message}`);
  } finally {
    client.close();
  }
}

/** The implicit-TLS port (open only with a certificate): TLS from the first byte, then AUTH offered. */
export async function checkImplicitTls(
  settings: Config['submission'],
  target: SubmissionTarget,
  timeoutMs: number,
): Promise<CheckResult | undefined> {
  if (target.tlsPort === null) return undefined;
  const check = 'submission_implicit_tls';
  const host = probeHost(target.host);
  const subject = where(host, target.tlsPort);
  if (target.tlsPort === 0)
    return result(
      check,
      'submission.tlsPort',
      'warn',
      'submission.tlsPort is 0 (a free port at each start): nothing to probe',
    );
  let client: SmtpProbeClient;
  try {
    client = await SmtpProbeClient.open({ host, port: target.tlsPort, implicitTls: true }, timeoutMs);
  } catch (err) {
    return unreachable(check, subject, err);
  }
  try {
    const session = await readEhlo(client, HELO, { greeting: true });
    if (session.greeting.code !== 220)
      return result(check, subject, 'fail', `greets with ${replyText(session.greeting)}`);
    if (session.ehlo.code !== 250 || !session.extensions.has('AUTH'))
      return result(check, subject, 'fail', `offers no AUTH: ${replyText(session.ehlo)}`);
    const cert = certificateNote(settings, client.peerCertificate());
    return result(check, subject, cert.status, `TLS, AUTH ${session.authMechanisms.join(' ')}; ${cert.text}`);
  } catch (err) {
    return result(check, subject, 'fail', `the SMTP conversation broke off: ${(err as Error).message}`);
  } finally {
    client.close();
  }
}
