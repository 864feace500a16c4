import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import Stripe from 'stripe';
import type { Route } from './api-routes.js';
import { decodeForm, type Form } from './form-encoding.js';
import type { Page } from './hosted-pages.js';
import { newId } from './ids-and-time.js';
import {
  authenticationFailed,
  idempotencyMismatch,
  StripeDoubleError,
  unrecognizedUrl,
  type StripeErrorBody,
} from './stripe-errors.js';

export type RecordedRequest = {
  method: string;
  path: string;
  query: Form;
  /** The decoded form body (empty for GET). */
  body: Form;
  headers: IncomingHttpHeaders;
  status: number;
  /** The parsed JSON answer (or the page's text for hosted pages). */
  response: unknown;
  requestId: string;
  idempotencyKey: string | null;
  /** True when the answer was a replay of an earlier request with the same Idempotency-Key. */
  replayed: boolean;
};

type Answer = { status: number; headers: Record<string, string>; text: string };
type Saved = { fingerprint: string; status: number; text: string };
type Failure = { method: string; path: string; status: number; error: StripeErrorBody };

/**
 * The transport half of the double: a real HTTP server on loopback that checks the secret key,
 * replays idempotent POSTs, injects one-off failures, plays dead when asked, records every request
 * and hands `/v1/...` to the routes and everything else to the hosted pages.
 */
export class StripeDoubleServer {
  readonly requests: RecordedRequest[] = [];
  /** Connections destroyed while unreachable (proof the client tried). */
  refusedConnections = 0;
  port = 0;
  private unreachable = false;
  private failures: Failure[] = [];
  private readonly saved = new Map<string, Saved>();
  private readonly sockets = new Set<Socket>();
  private readonly server: Server;

  constructor(
    private readonly secretKey: string,
    private readonly routes: Route[],
    private readonly pages: (path: string) => Page | null,
  ) {
    this.server = createServer((req, res) => void this.serve(req, res));
    this.server.on('connection', (socket: Socket) => {
      if (this.unreachable) {
        this.refusedConnections += 1;
        socket.destroy();
        return;
      }
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  async listen(host: string): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, host, resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }

  setUnreachable(on: boolean): void {
    this.unreachable = on;
    // Kept-alive connections would still carry requests: they go too.
    if (on) for (const socket of this.sockets) socket.destroy();
  }

  failNext(method: string, path: string, status: number, error: StripeErrorBody): void {
    this.failures.push({ method: method.toUpperCase(), path, status, error });
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (this.unreachable) {
      this.refusedConnections += 1;
      req.socket.destroy();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const method = (req.method ?? 'GET').toUpperCase();
    const target = new URL(req.url ?? '/', 'http://double');
    const path = target.pathname;
    const query = decodeForm(target.search.slice(1));
    const body = method === 'POST' ? decodeForm(text) : {};
    const requestId = newId.request();
    const idempotencyKey = method === 'POST' ? (header(req.headers['idempotency-key']) ?? null) : null;
    let answer: Answer;
    let replayed = false;
    if (path.startsWith('/v1/')) {
      const saved = idempotencyKey ? this.saved.get(idempotencyKey) : undefined;
      const fingerprint = `${method} ${path} ${JSON.stringify(body)}`;
      if (saved && this.authorized(req.headers)) {
        replayed = saved.fingerprint === fingerprint;
        answer = replayed ? jsonAnswer(saved.status, saved.text) : errorAnswer(idempotencyMismatch(idempotencyKey!));
        if (replayed) answer.headers['idempotent-replayed'] = 'true';
      } else {
        answer = this.api(req.headers, method, path, query, body, requestId, idempotencyKey);
        // Stripe saves a result once the endpoint ran: here, every success.
        if (idempotencyKey && answer.status < 300)
          this.saved.set(idempotencyKey, { fingerprint, status: answer.status, text: answer.text });
      }
      answer.headers['request-id'] = requestId;
      answer.headers['stripe-version'] = header(req.headers['stripe-version']) ?? Stripe.API_VERSION;
      if (idempotencyKey) answer.headers['idempotency-key'] = idempotencyKey;
    } else {
      const page = method === 'GET' ? this.pages(path) : null;
      answer = page
        ? { status: page.status, headers: { 'content-type': page.contentType }, text: page.body }
        : { status: 404, headers: { 'content-type': 'text/plain' }, text: 'Not found' };
    }
    let response: unknown = answer.text;
    if (answer.headers['content-type'] === 'application/json') response = JSON.parse(answer.text);
    this.requests.push({
      method,
      path,
      query,
      body,
      headers: req.headers,
      status: answer.status,
      response,
      requestId,
      idempotencyKey,
      replayed,
    });
    res.writeHead(answer.status, answer.headers);
    res.end(answer.text);
  }

  private authorized(headers: IncomingHttpHeaders): boolean {
    return sentKey(headers) === this.secretKey;
  }

  private api(
    headers: IncomingHttpHeaders,
    method: string,
    path: string,
    query: Form,
    body: Form,
    requestId: string,
    idempotencyKey: string | null,
  ): Answer {
    if (!this.authorized(headers)) return errorAnswer(authenticationFailed(sentKey(headers)));
    const failure = this.failures.findIndex((f) => f.method === method && f.path === path);
    if (failure >= 0) {
      const [{ status, error }] = this.failures.splice(failure, 1) as [Failure];
      return errorAnswer(new StripeDoubleError(status, error));
    }
    for (const route of this.routes) {
      const match = route.method === method ? route.path.exec(path) : null;
      if (!match) continue;
      try {
        const params = match.slice(1).map((p) => decodeURIComponent(p));
        const result = route.handle({
          params,
          query,
          body,
          request: { id: requestId, idempotency_key: idempotencyKey },
        });
        return jsonAnswer(200, JSON.stringify(result));
      } catch (error) {
        if (error instanceof StripeDoubleError) return errorAnswer(error);
        // A fault in the double itself: visible as Stripe's api_error, with the cause.
        return errorAnswer(
          new StripeDoubleError(500, { type: 'api_error', message: `Stripe double fault: ${String(error)}` }),
        );
      }
    }
    return errorAnswer(unrecognizedUrl(method, path));
  }
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The key from `Authorization: Bearer sk_...` (or Basic `sk_...:`, as curl -u sends it). */
function sentKey(headers: IncomingHttpHeaders): string | undefined {
  const value = header(headers.authorization);
  if (!value) return undefined;
  const [scheme, credential = ''] = value.split(' ', 2);
  if (scheme?.toLowerCase() === 'bearer') return credential;
  if (scheme?.toLowerCase() === 'basic') return Buffer.from(credential, 'base64').toString('utf8').replace(/:$/, '');
  return value;
}

function jsonAnswer(status: number, text: string): Answer {
  return { status, headers: { 'content-type': 'application/json' }, text };
}

function errorAnswer(error: StripeDoubleError): Answer {
  return jsonAnswer(error.status, JSON.stringify(error.toJSON(), null, 2));
}
