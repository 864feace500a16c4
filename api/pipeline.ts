import type { Context } from 'koa';
import type { Authenticated } from '../core/platform/api-keys/api-key.service.js';
import { requestFingerprint } from '../core/platform/idempotency/idempotency.service.js';
import type { RateDecision } from '../core/platform/rate-limit/rate-limiter.js';
import type { Services } from '../app/services.js';
import { ForbiddenValidationError, MethodNotAllowedError, MissingApiKeyError, NotFoundError, RateLimitExceededError, RestrictedApiKeyError, InvalidPermissionError } from '../lib/errors.js';
import { parseInput } from '../lib/validation.js';
import { parseJsonBody, queryObject, readRawBody } from './request-body.js';
import type { RouteContext, RouteDef, RouteResult } from './route.js';
import type { Router } from './router.js';

/** What one request accumulates on its way through; the outer wrapper logs from it. */
export type RequestState = {
  requestId: string;
  path: string;
  route: RouteDef | null;
  auth: Authenticated | null;
  rate: RateDecision | null;
  body: unknown;
  /** The status a log entry already committed with the handler's change (RouteContext.logWith). */
  loggedStatus: number | null;
};

export const API_V1_PREFIX = '/api/v1';

/** The request path relative to either base, without a trailing slash. */
export function relativePath(path: string): string {
  const stripped = path === API_V1_PREFIX || path.startsWith(`${API_V1_PREFIX}/`) ? path.slice(API_V1_PREFIX.length) : path;
  const trimmed = stripped.replace(/\/+$/, '');
  return trimmed === '' ? '/' : trimmed;
}

/**
 * The fixed order every request goes through: User-Agent, route, credential, rate limit,
 * permission, input, idempotency, handler. Each step either passes or throws an AppError.
 */
export async function runPipeline(
  ctx: Context,
  state: RequestState,
  deps: { router: Router; services: Services; maxBodyBytes: number; logWith: RouteContext<unknown, unknown, unknown>['logWith'] },
): Promise<RouteResult> {
  if (!ctx.get('user-agent')) throw new ForbiddenValidationError('The User-Agent header is required', { code: 1010 });

  const match = deps.router.match(ctx.method, state.path);
  if (match.kind === 'not_found') throw new NotFoundError('Route not found');
  if (match.kind === 'method_not_allowed') {
    throw new MethodNotAllowedError(`Method ${ctx.method} is not allowed on this path`, { headers: { allow: match.allow.join(', ') } });
  }
  const route = match.route;
  state.route = route;

  if (route.permission !== 'none') {
    state.auth = await authenticate(ctx, deps.services);
    state.rate = await deps.services.rateLimiter.take({ teamId: state.auth.team.id });
    if (!state.rate.allowed) {
      throw new RateLimitExceededError('Too many requests: the limit is shared by all keys of the team', {
        headers: { 'retry-after': String(state.rate.retryAfterSeconds) },
      });
    }
    authorize(route, state.auth);
  }

  const raw = ['POST', 'PUT', 'PATCH', 'DELETE'].includes(ctx.method) ? await readRawBody(ctx.req, deps.maxBodyBytes) : Buffer.alloc(0);
  const parsedBody = route.body || raw.length > 0 ? parseJsonBody(raw, ctx.get('content-type') || undefined) : undefined;
  state.body = parsedBody;
  const input = {
    params: route.params ? parseInput(route.params, match.params, 'params') : match.params,
    query: route.query ? parseInput(route.query, queryObject(ctx.URL.searchParams), 'query') : {},
    body: route.body ? parseInput(route.body, parsedBody, 'body') : undefined,
  };
  const handlerContext = { ...input, auth: state.auth as Authenticated, services: deps.services, requestId: state.requestId, headers: ctx.headers, logWith: deps.logWith };

  const idempotencyKey = ctx.headers['idempotency-key'];
  if (!route.idempotent || idempotencyKey === undefined || !state.auth) return route.handler(handlerContext);
  // Bound rather than a closure: under tsx every named closure costs an Object.defineProperty.
  const call = route.handler.bind(route, handlerContext);
  const key = Array.isArray(idempotencyKey) ? idempotencyKey.join(',') : idempotencyKey;
  return withIdempotency(deps.services, state.auth.team.id, key, requestFingerprint(ctx.method, state.path, raw), call);
}

async function authenticate(ctx: Context, services: Services): Promise<Authenticated> {
  const header = ctx.get('authorization');
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw new MissingApiKeyError('Missing API key: send Authorization: Bearer <API_KEY>');
  return services.apiKeys.authenticate(match[1]!);
}

function authorize(route: RouteDef, auth: Authenticated): void {
  if (route.permission === 'full_access' && auth.apiKey.permission !== 'full_access') {
    throw new RestrictedApiKeyError('This API key is restricted to sending emails');
  }
  if (route.permission === 'session' || route.permission === null) {
    throw new InvalidPermissionError('This route is not reachable with an API key');
  }
}

async function withIdempotency(services: Services, teamId: string, key: string, fingerprint: string, call: () => Promise<RouteResult>): Promise<RouteResult> {
  const claim = await services.idempotency.claim(teamId, key, fingerprint);
  if (claim.kind === 'replay') {
    return { status: claim.response.status, body: claim.response.body, headers: { 'idempotent-replayed': 'true' } };
  }
  let result: RouteResult;
  try {
    result = await call();
  } catch (err) {
    await services.idempotency.release(claim.id);
    throw err;
  }
  if (result.status >= 200 && result.status < 300) await services.idempotency.complete(claim.id, { status: result.status, body: result.body ?? null });
  else await services.idempotency.release(claim.id);
  return result;
}
