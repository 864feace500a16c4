import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { rmSync } from 'node:fs';
import type { Runtime } from '../app/runtime.js';
import type { InboundEnvelope } from '../core/receiving/received-email.types.js';
import { mimeLimitExceeded } from '../lib/mail/mime-limits.js';
import { DmarcReportTooLargeError } from '../core/receiving/dmarc-reports/dmarc-report.service.js';

/** What the plugins post at RCPT. */
type RcptQuestion = { recipient?: unknown; sender?: unknown; remote_ip?: unknown };

/** The envelope the queue plugin sends in a header (base64 JSON), beside the message stream. */
type EnvelopeHeader = { mail_from?: unknown; recipients?: unknown; remote_ip?: unknown; helo?: unknown; tls?: unknown };

const text = (value: unknown) => (typeof value === 'string' ? value : '');

function answer(res: ServerResponse, status: number, body: unknown): void {
  const bytes = Buffer.from(JSON.stringify(body));
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': bytes.length });
  res.end(bytes);
}

async function readBody(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function envelopeOf(req: IncomingMessage): InboundEnvelope {
  const header = req.headers['x-mailroom-envelope'];
  const parsed = JSON.parse(Buffer.from(text(header), 'base64').toString('utf8')) as EnvelopeHeader;
  return {
    mailFrom: text(parsed.mail_from),
    recipients: Array.isArray(parsed.recipients) ? parsed.recipients.map(text).filter(Boolean) : [],
    remoteIp: text(parsed.remote_ip) || null,
    helo: text(parsed.helo) || null,
    tls: parsed.tls === true,
  };
}

/**
 * The Unix-socket HTTP endpoint our Haraka plugins call: POST /rcpt (accept, reject or defer a
 * recipient) and POST /messages (store a message durably, then answer the ids its 250 names).
 * Any failure here is a 503 the plugin turns into 451: the sending server keeps the message and
 * retries; only a message refused for itself (too large, too many MIME parts) is answered as
 * permanent (554).
 */
export function startInboundBridge(runtime: Runtime, socketPath: string): Promise<Server> {
  const { services, logger, config, metrics } = runtime;
  // Haraka refuses larger messages itself; the margin covers its Received header.
  const bodyLimit = config.inbound.maxMessageBytes + 64 * 1024;

  async function rcpt(req: IncomingMessage, res: ServerResponse) {
    const question = JSON.parse((await readBody(req, 16 * 1024))?.toString('utf8') ?? '{}') as RcptQuestion;
    const route = await services.inboundRecipients.route(text(question.recipient));
    metrics.inboundRecipients.inc({ decision: route.kind === 'unknown' ? 'refused' : route.kind });
    if (route.kind === 'unknown') return answer(res, 200, { decision: 'reject', message: 'No such user here' });
    answer(res, 200, { decision: 'accept', kind: route.kind });
  }

  async function message(req: IncomingMessage, res: ServerResponse) {
    const envelope = envelopeOf(req);
    const raw = await readBody(req, bodyLimit);
    if (!raw) return answer(res, 552, { message: 'Message too large', permanent: true });
    const result = await services.inboundIntake.accept(envelope, raw);
    metrics.inboundMessages.inc({ outcome: 'accepted' });
    logger.info(
      {
        id: result.id,
        from: envelope.mailFrom,
        recipients: envelope.recipients.length,
        received: result.received.map((email) => email.id),
        reports: result.reports,
        unsubscribed: result.unsubscribed,
        dmarcReports: result.dmarcReports,
        unrouted: result.unrouted,
        bytes: raw.length,
      },
      'inbound: message accepted',
    );
    // What the 250 names: the received emails' API ids (GET /emails/receiving/<id>), one per team
    // the message is addressed to, the message's own id first; a message that made none (a
    // bounce, a complaint, an unsubscribe) is named by its id, the one the logs carry.
    const queuedAs = result.received.length > 0 ? result.received.map((email) => email.id) : [result.id];
    answer(res, 200, { id: result.id, queued_as: queuedAs });
  }

  const server = createServer((req, res) => {
    const handler =
      req.method === 'POST' && req.url === '/rcpt'
        ? rcpt
        : req.method === 'POST' && req.url === '/messages'
          ? message
          : null;
    if (!handler) return answer(res, 404, { message: 'not found' });
    handler(req, res).catch((err: unknown) => {
      // A message the parser refuses for its own structure fails the same way on every retry:
      // refused permanently (the plugin answers 554 5.6.0), not deferred as our failure.
      // So does a DMARC report over config.dmarcReports.maxReportBytes.
      const refusal =
        req.url !== '/messages'
          ? undefined
          : err instanceof DmarcReportTooLargeError
            ? `DMARC report too large (limit ${err.limit} bytes)`
            : mimeLimitExceeded(err);
      if (refusal) {
        logger.warn({ reason: refusal }, 'inbound: message refused');
        metrics.inboundMessages.inc({ outcome: 'refused' });
        if (!res.headersSent) answer(res, 554, { message: `Message refused: ${refusal}`, permanent: true });
        return;
      }
      logger.error({ err, path: req.url }, 'inbound: our failure; the sender is told to retry (451)');
      if (req.url === '/messages') metrics.inboundMessages.inc({ outcome: 'failed' });
      else metrics.inboundRecipients.inc({ decision: 'failed' });
      if (!res.headersSent) answer(res, 503, { message: 'Temporary local problem, try again later' });
    });
  });
  rmSync(socketPath, { force: true });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve(server));
  });
}
