import { createServer, type RequestListener, type Server } from 'node:http';
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
    dashboardDir: config.dashboard.dir,
    observe: (method, route, status, seconds) => {
      runtime.metrics.apiRequestSeconds.observe({ method, route, status: String(status) }, seconds);
      if (status === 429) runtime.metrics.rateLimited.inc();
    },
  });
  const server = await listen(app.callback(), options.port ?? config.api.port, config.api.host);
  const url = server.url;
  if (!config.api.publicUrl) runtime.publicUrl.value = url;
  if (options.worker) logger.debug({ url }, 'API worker listening');
  else logger.info({ url }, 'API listening');
  // The dashboard's own address (dashboard.port): the same application, so the dashboard there
  // calls the API on its own origin (its CSP allows no other).
  const dashboard =
    config.dashboard.port !== undefined
      ? await listen(app.callback(), config.dashboard.port, config.dashboard.host ?? config.api.host)
      : undefined;
  if (dashboard) {
    if (!config.dashboard.publicUrl) runtime.dashboardUrl.value = dashboard.url;
    if (!options.worker) logger.info({ url: `${dashboard.url}/dashboard/` }, 'dashboard listening');
  }
  return {
    server: server.server,
    url,
    dashboardUrl: dashboard?.url,
    close: async () => {
      await Promise.all([server.close(), dashboard?.close()]);
    },
  };
}

type Listening = { server: Server; url: string; close: () => Promise<void> };

async function listen(callback: RequestListener, port: number, host: string): Promise<Listening> {
  const server = createServer(callback);
  answerClientErrors(server);
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return {
    server,
    url: `http://${shown.includes(':') ? `[${shown}]` : shown}:${bound}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
