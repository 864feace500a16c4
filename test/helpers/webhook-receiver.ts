import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { startWebhookWorker, type WebhookWorker } from '../../scheduler/workers/webhook-delivery.worker.js';
import { request } from './http.js';
import { startTestApp, type TestApp } from './test-app.js';

export type ReceivedWebhook = { headers: IncomingHttpHeaders; body: string; path: string; at: number };

/**
 * A real HTTP webhook receiver on loopback. It keeps every request with its raw body (the bytes
 * the signature covers) and answers `status` (200 by default). `down()` closes the listening
 * socket and every connection (senders get connection refused); `up()` listens again on the
 * same port.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  status = 200;
  responseBody = 'ok';
  /** Milliseconds to wait before answering (timeouts). */
  delayMs = 0;
  private server: Server;
  private readonly sockets = new Set<Socket>();
  private waiters: Array<() => void> = [];

  private constructor(
    readonly host: string,
    private port: number,
  ) {
    this.server = this.create();
  }

  static async start(host = '127.0.0.1', port = 0): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver(host, port);
    await receiver.up();
    return receiver;
  }

  /** http://host:port/path (the appliance under test runs with webhooks.allowHttp). */
  url(path = '/hook'): string {
    return `http://${this.host}:${this.port}${path}`;
  }

  get boundPort(): number {
    return this.port;
  }

  /** Resolves once at least `count` requests have arrived (or rejects after timeoutMs). */
  async waitFor(count: number, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.received.length < count) {
      if (Date.now() > deadline)
        throw new Error(`waited ${timeoutMs} ms for ${count} webhooks, got ${this.received.length}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 200);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async up(): Promise<void> {
    this.server = this.create();
    await new Promise<void>((resolve) => this.server.listen(this.port, this.host, resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  async down(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }

  private create(): Server {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        this.received.push({
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          path: req.url ?? '',
          at: Date.now(),
        });
        const waiters = this.waiters;
        this.waiters = [];
        for (const waiter of waiters) waiter();
        setTimeout(() => {
          if (res.destroyed) return;
          res.writeHead(this.status, { 'content-type': 'text/plain' });
          res.end(this.responseBody);
        }, this.delayMs);
      });
    });
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    return server;
  }
}

export type WebhookApp = {
  app: TestApp;
  workers: WebhookWorker[];
  /** A team (unlimited plan) with a full_access key. */
  team: { teamId: string; token: string };
  /** Creates an endpoint through the API; answers its id and signing secret. */
  createEndpoint(url: string, events: string[], token?: string): Promise<{ id: string; secret: string }>;
  close(): Promise<void>;
};

/**
 * An appliance whose webhooks may reach the loopback receiver (webhooks.allowHttp and
 * allowAddresses 127.0.0.1 unless `webhooks` says otherwise), with fast retries and polling,
 * and `workers` delivery workers running in this process.
 */
export async function startWebhookApp(
  options: { webhooks?: Record<string, unknown>; env?: Record<string, string>; workers?: number } = {},
): Promise<WebhookApp> {
  const app = await startTestApp({
    env: options.env,
    config: {
      webhooks: {
        allowHttp: true,
        allowAddresses: ['127.0.0.1'],
        pollMs: 50,
        retrySchedule: [1, 1, 1],
        ...options.webhooks,
      },
    },
  });
  const team = await app.createTeam('Webhooks', 'unlimited');
  const workers = Array.from({ length: options.workers ?? 1 }, () => startWebhookWorker(app.runtime));
  return {
    app,
    workers,
    team,
    async createEndpoint(url, events, token = team.token) {
      const res = await request(app.url, '/webhooks', { method: 'POST', token, body: { endpoint: url, events } });
      if (res.status !== 201) throw new Error(`endpoint not created: ${res.text}`);
      return { id: res.body.id, secret: res.body.signing_secret };
    },
    async close() {
      for (const worker of workers) await worker.stop();
      await app.close();
    },
  };
}
