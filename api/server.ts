import { createServer } from 'node:http';
import { answerClientErrors } from './client-errors.js';
import type { AddressInfo } from 'node:net';
import type { Runtime } from '../app/runtime.js';
import { VERSION } from '../lib/version.js';
import { startApiCluster } from './api-cluster.js';
import { createApp } from './app.js';
import type { RouteDef } from './route.js';
import { apiRoutes } from './routes/index.js';

import type { ApiServer } from './api-server.types.js';

export type { ApiServer } from './api-server.types.js';

/**
 * Starts the HTTP API on the configured host and port (0 picks a free port), in this process,
 * or with `api.workers` > 1 in that many worker processes (`worker` is set inside one of them).
 */
export async function startApiServer(
  runtime: Runtime,
  options: { extraRoutes?: RouteDef[]; port?: number; worker?: boolean } = {},
): Promise<ApiServer> {
  const { config, services, logger, clock } = runtime;
  if (config.api.workers > 1 && !options.worker) {
    if (options.extraRoutes || options.port !== undefined)
      throw new Error('extraRoutes and port apply to a single-process API only');
    return startApiCluster(runtime);
  }
  const app = createApp({
    services,
    routes: apiRoutes(VERSION, options.extraRoutes),
    logger,
    clock,
    trustProxy: config.api.trustProxy,
    maxBodyBytes: config.api.maxBodyBytes,
    observe: (method, route, status, seconds) => {
      runtime.metrics.apiRequestSeconds.observe({ method, route, status: String(status) }, seconds);
      if (status === 429) runtime.metrics.rateLimited.inc();
    },
  });
  const server = createServer(app.callback());
  answerClientErrors(server);
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? config.api.port, config.api.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = config.api.host === '0.0.0.0' || config.api.host === '::' ? '127.0.0.1' : config.api.host;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  if (!config.api.publicUrl) runtime.publicUrl.value = url;
  if (options.worker) logger.debug({ url }, 'API worker listening');
  else logger.info({ url }, 'API listening');
  return {
    server,
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
