import Koa, { type Context } from 'koa';
import { OPERATOR_LOG_TEAM_ID, type RequestRecord } from '../core/platform/request-logs/request-log.service.js';
import type { Services } from '../app/services.js';
import type { Clock } from '../lib/clock.js';
import type { UnitOfWork } from '../db/unit-of-work.js';
import { AppError, ApplicationError, ServiceUnavailableError } from '../lib/errors.js';
import { isDependencyDown } from '../db/errors.js';
import { newId } from '../lib/ids.js';
import type { Logger } from '../lib/logger.js';
import { relativePath, runPipeline, type RequestState } from './pipeline.js';
import type { RouteDef, RouteResult } from './route.js';
import { jsonBodyReader } from './request-body.js';
import { Router } from './router.js';
import { trackingMiddleware } from './tracking/tracking.middleware.js';
import { pagesMiddleware } from './pages/pages.middleware.js';
import { billingWebhooksMiddleware } from './billing-webhooks/billing-webhooks.middleware.js';
import { inProcessDispatch } from './mcp/in-process-dispatch.js';
import { mcpMiddleware } from './mcp/mcp.middleware.js';
import { defaultDashboardDir } from './dashboard/dashboard-files.js';
import { dashboardMiddleware } from './dashboard/dashboard.middleware.js';

export type AppOptions = {
  services: Services;
  routes: RouteDef[];
  logger: Logger;
  clock: Clock;
  trustProxy: boolean;
  maxBodyBytes: number;
  /** Told every answered request (metrics): the route template (or 'unmatched'), status and seconds. */
  observe?: (method: string, route: string, status: number, seconds: number) => void;
  /** The built dashboard (default: dist/web of this checkout or release). */
  dashboardDir?: string;
};

/**
 * The Koa application. One middleware: it gives the request an id, runs the pipeline, turns any
 * error into the spec's error body, sets the rate-limit headers every response carries, and
 * records the request in the team's request log.
 */
export function createApp(options: AppOptions): Koa {
  const router = new Router(options.routes.filter((route) => (route.surface ?? 'api') === 'api'));
  const readBody = jsonBodyReader(options.maxBodyBytes);
  const app = new Koa({ proxy: options.trustProxy });
  app.silent = true;

  // Tracking hosts (open pixel, click redirects) are answered before, and outside, the API.
  app.use(
    trackingMiddleware({
      services: options.services,
      routes: options.routes.filter((route) => route.surface === 'tracking'),
      logger: options.logger,
    }),
  );
  // Pages people open from an email (unsubscribe, preferences): outside the API too.
  app.use(
    pagesMiddleware({
      services: options.services,
      routes: options.routes.filter((route) => route.surface === 'pages'),
      logger: options.logger,
    }),
  );
  // The payment provider's webhooks (/billing-webhooks/<provider>): signed, keyless, outside the API too.
  app.use(billingWebhooksMiddleware({ services: options.services, logger: options.logger }));
  // The dashboard's files under /dashboard/ (and a browser's `/`): outside the API too.
  app.use(dashboardMiddleware({ dir: options.dashboardDir ?? defaultDashboardDir() }));
  const api = async (ctx: Context): Promise<void> => {
    const request: LoggedRequest = {
      started: performance.now(),
      startedAt: options.clock.now(),
      method: ctx.method,
      userAgent: ctx.get('user-agent') || undefined,
      state: {
        requestId: newId(),
        path: relativePath(ctx.path),
        route: null,
        auth: null,
        rate: null,
        body: undefined,
        loggedStatus: null,
      },
    };
    const { state } = request;
    ctx.set('x-request-id', state.requestId);

    let result: RouteResult;
    try {
      // A request that changes data commits its log entry in its unit of work (latency then ends at that commit).
      const unit = options.services.units.begin();
      result = await runPipeline(ctx, state, {
        router,
        services: options.services,
        readBody,
        unit,
        logInto: logInto.bind(null, options.services, request),
      });
    } catch (err) {
      // Whatever the unit held was not committed, its log entry included.
      state.loggedStatus = null;
      result = errorResult(err, state, options.logger);
    }
    state.rate ??= await options.services.rateLimiter.take({ ip: ctx.ip }).catch(() => null);
    try {
      writeResult(ctx, result, state);
    } catch (err) {
      // A header Node refuses (a value outside Latin-1, a CR or LF) would otherwise reach Koa's
      // own handler: a text/plain 500 that nothing logs. It becomes the logged error body instead.
      for (const name of Object.keys(result.headers ?? {})) ctx.remove(name);
      result = errorResult(err, state, options.logger);
      writeResult(ctx, result, state);
    }
    options.observe?.(
      ctx.method,
      state.route?.path ?? 'unmatched',
      result.status,
      (performance.now() - request.started) / 1000,
    );

    // Unless the entry already committed with the handler's change and the answer is the one it
    // records; refusals for the rate limit are sampled (see shouldLogRateLimited).
    const logKey = loggedCaller(state);
    if (
      logKey !== null &&
      state.loggedStatus !== result.status &&
      (result.status !== 429 || options.services.requestLogs.shouldLogRateLimited(logKey, Date.now()))
    ) {
      await options.services.requestLogs
        .record(logRecord(request, result))
        .catch((err: unknown) =>
          options.logger.error({ err, requestId: state.requestId }, 'could not record request log'),
        );
    }
  };
  // MCP at /mcp, before the pipeline: OAuth tokens only; each tool call is run through `api` in process.
  app.use(
    mcpMiddleware({
      services: options.services,
      routes: options.routes,
      logger: options.logger,
      readBody,
      dispatch: inProcessDispatch(app, api),
    }),
  );
  app.use(api);
  return app;
}

/** What the request log needs of a request, gathered as it goes through. */
type LoggedRequest = {
  started: number;
  startedAt: Date;
  method: string;
  userAgent: string | undefined;
  state: RequestState;
};

// Module-level functions rather than closures per request: under tsx (esbuild's keepNames)
// every named closure costs an Object.defineProperty.
/**
 * Whose request the log records, as the key its rate-limited entries are sampled by: a team's
 * caller (key, token or session), or an operator on the admin API (logged as the appliance's);
 * null when nobody was authenticated (nothing is logged).
 */
function loggedCaller(state: RequestState): string | null {
  if (state.auth) return state.auth.apiKey.id;
  if (state.route?.permission === 'operator' && state.session) return `operator:${state.session.user.id}`;
  return null;
}

function logRecord(request: LoggedRequest, result: RouteResult): RequestRecord {
  const { state } = request;
  if (!state.auth)
    // The admin API: an operator's session, in the appliance's own log (GET /admin/logs).
    return { ...requestFields(request, result), teamId: OPERATOR_LOG_TEAM_ID, apiKeyId: null, viaDashboard: true };
  return {
    ...requestFields(request, result),
    teamId: state.auth.team.id,
    // A dashboard session stands in a key's place but is no key: its requests name none.
    apiKeyId: state.auth.member ? null : state.auth.apiKey.id,
    viaDashboard: Boolean(state.auth.member),
  };
}

/** What every log entry records of the request and its answer, whoever made it. */
function requestFields(request: LoggedRequest, result: RouteResult) {
  const { state } = request;
  return {
    startedAt: request.startedAt,
    endpoint: state.path,
    method: request.method,
    responseStatus: result.status,
    userAgent: request.userAgent,
    requestId: state.requestId,
    latencyMs: Math.round(performance.now() - request.started),
    requestBody: state.body,
    responseBody: result.raw ? null : (result.body ?? null),
    emailId: result.emailId ?? null,
  };
}

/** The pipeline's participant: the log entry of the result about to commit, in the same unit. */
function logInto(services: Services, request: LoggedRequest, unit: UnitOfWork, result: RouteResult): void {
  if (loggedCaller(request.state) === null) return;
  request.state.loggedStatus = result.status;
  services.requestLogs.writeInto(unit, logRecord(request, result));
}

/**
 * Any error as the answer the API gives: a refusal's own status and body, 503 for a dependency that
 * cannot serve now (isDependencyDown), else 500 (logged as unexpected).
 */
export function errorResult(err: unknown, state: RequestState, logger: Logger): RouteResult {
  if (err instanceof AppError) return { status: err.statusCode, body: err.toBody(), headers: err.headers };
  if (isDependencyDown(err)) {
    logger.error({ err, requestId: state.requestId }, 'dependency unavailable');
    const error = new ServiceUnavailableError(
      `A dependency is unavailable; retry with backoff (request id ${state.requestId})`,
    );
    return { status: error.statusCode, body: error.toBody() };
  }
  logger.error({ err, requestId: state.requestId, path: state.path }, 'unexpected error');
  const error = new ApplicationError(`An unexpected error occurred; request id ${state.requestId}`);
  return { status: error.statusCode, body: error.toBody() };
}

function writeResult(ctx: Context, result: RouteResult, state: RequestState): void {
  if (state.rate) {
    ctx.set('ratelimit-limit', String(state.rate.limit));
    ctx.set('ratelimit-remaining', String(state.rate.remaining));
    ctx.set('ratelimit-reset', String(state.rate.resetSeconds));
  }
  for (const [name, value] of Object.entries(result.headers ?? {})) ctx.set(name, value);
  ctx.status = result.status;
  if (result.raw) {
    ctx.type = result.raw.contentType;
    ctx.body = result.raw.bytes;
    return;
  }
  ctx.type = 'application/json; charset=utf-8';
  ctx.body = JSON.stringify(result.body ?? null);
}
