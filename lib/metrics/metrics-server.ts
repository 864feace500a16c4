import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ProcessMetrics } from './process-metrics.js';

export type MetricsServer = { url: string; close(): Promise<void> };

/**
 * `GET /metrics` on its own listen address (127.0.0.1:9464 by default), never on the public API:
 * anything else is 404. One per process.
 */
export async function startMetricsServer(
  metrics: ProcessMetrics,
  options: { host: string; port: number },
): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    metrics.scrape().then(
      ({ contentType, body }) => res.writeHead(200, { 'content-type': contentType }).end(body),
      (err: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`scrape failed: ${String(err)}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}/metrics`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
