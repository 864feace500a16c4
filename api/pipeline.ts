import type { Context } from 'koa';
import type { SessionCaller } from '../core/accounts/account.types.js';
import { hasScope, type Caller } from '../core/platform/auth/caller.js';
import { requestFingerprint } from '../core/platform/idempotency/idempotency.service.js';
import type { RateDecision } from '../core/platform/rate-limit/rate-limiter.js';
import type { Services } from '../app/services.js';
import type { UnitOfWork } from '../db/unit-of-work.js';
import { crashPoint } from '../lib/crash-point.js';
import {
  ForbiddenValidationError,
  MethodNotAllowedError,
  MissingApiKeyError,
  NotFoundError,
  RateLimitExceededError,
  RestrictedApiKeyError,
  InvalidPermissionError,
} from '../lib/errors.js';
import { parseInput } from '../lib/validation.js';
import { requestAudience } from './mcp/in-process-dispatch.js';
import { readUpload } from './multipart-body.js';
import { stageAuditEntries } from './audit-trail.js';
import { queryObject, type ReadBody } from './request-body.js';
import type { RouteContext, RouteDef, RouteResult } from './route.js';
import type { Match, Router } from './router.js';
import { authenticateOperator } from './operator-auth.js';
import { assertSameOrigin, authenticateSession, authenticateSessionAsCaller } from './session-auth.js';

/** What one request accumulates on its way through; the outer wrapper logs from it. */
export type RequestState = {
  requestId: string;
  path: string;
  route: RouteDef | null;
  auth: Caller | null;
  /** The dashboard session, on 'session' routes. */
  session?: SessionCaller;
  rate: RateDecision | null;
  body: unknown;
  /** The status of the log entry that committed with the request's unit of work, if one did. */
  loggedStatus: number | null;
};

export const API_V1_PREFIX = '/api/v1';

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const NO_BODY: ReadBody = { parsed: {}, raw: '' };

/**
 * The request path relative to either base, without a trailing slash, repeated slashes read as
 * one (an SDK given a base URL ending in `/` asks for `/api/v1//emails`). For routing the API
 * only: the tracking and pages middlewares match the path as sent, and no answer echoes it.
 */
export function relativePath(requestPath: string): string {
  const path = requestPath.replace(/\/{2,}/g, '/');
  const stripped =
    path === API_V1_PREFIX || path.startsWith(`${API_V1_PREFIX}/`) ? path.slice(API_V1_PREFIX.length) : path;
  const trimmed = stripped.replace(/\/+$/, '');
  return trimmed === '' ? '/' : trimmed;
}

/**
 * The fixed order every request goes through: User-Agent, route, credential, rate limit,
 * permission, input, idempotency, handler. Each step either passes or throws an AppError.
 */
export type PipelineDeps = {
  router: Router;
  services: Services;
  /** Reads a JSON body (koa-body; see request-body.ts). */
  readBody: (ctx: Context) => Promise<ReadBody>;
  /** The request's unit of work (RouteContext.unit). */
  unit: UnitOfWork;
  /** Registers the request's log entry, for `result`, as a participant of the unit. */
  logInto: (unit: UnitOfWork, result: RouteResult) => void;
};

export async function runPipeline(ctx: Context, state: RequestState, deps: PipelineDeps): Promise<RouteResult> {
  if (!ctx.get('user-agent')) throw new ForbiddenValidationError('The User-Agent header is required', { code: 1010 });

  const match = deps.router.match(ctx.method, state.path);
  if (match.kind === 'not_found') throw new NotFoundError('Route not found');
  if (match.kind === 'method_not_allowed') {
    throw new MethodNotAllowedError(`Method ${ctx.method} is not allowed on this path`, {
      headers: { allow: match.allow.join(', ') },
    });
  }
  const route = match.route;
  state.route = route;

  if (route.permission === 'session') {
    // Cookie sessions: no team bucket here; the outer wrapper applies the per-address one.
    state.session = await authenticateSession(ctx, deps.services);
  } else if (route.permission === 'operator') {
    // The admin API: an operator's session with MFA on, and nothing else (no key, no token).
    state.session = await authenticateOperator(ctx, deps.services);
    // The same rule as a team's keys, in the operator's own bucket.
    state.rate = await deps.services.rateLimiter.take({ operatorId: state.session.user.id });
    if (!state.rate.allowed) {
      throw new RateLimitExceededError('Too many requests: the admin API allows the same rate as a team', {
        headers: { 'retry-after': String(state.rate.retryAfterSeconds) },
      });
    }
  } else if (route.permission !== 'none') {
    state.auth = await authenticate(ctx, deps.services);
    state.rate = await deps.services.rateLimiter.take({ teamId: state.auth.team.id });
    if (!state.rate.allowed) {
      throw new RateLimitExceededError('Too many requests: the limit is shared by all keys of the team', {
        headers: { 'retry-after': String(state.rate.retryAfterSeconds) },
      });
    }
    authorize(route, state.auth);
  } else if (route.originCheck && WRITE_METHODS.has(ctx.method)) {
    assertSameOrigin(ctx, deps.services, true);
  }

  if (!route.upload)
    return runRoute(ctx, state, deps, match, WRITE_METHODS.has(ctx.method) ? await deps.readBody(ctx) : NO_BODY);
  // An upload's file is removed once the request is done, unless the handler moved it away.
  const upload = await readUpload(ctx, route.upload, route.upload.directory(deps.services));
  try {
    return await runRoute(ctx, state, deps, match, upload);
  } finally {
    await upload.discard();
  }
}

/** Input, handler, idempotency and commit, once the body is read. */
async function runRoute(
  ctx: Context,
  state: RequestState,
  deps: PipelineDeps,
  match: Extract<Match, { kind: 'route' }>,
  { parsed, raw }: ReadBody,
): Promise<RouteResult> {
  const route = match.route;
  const parsedBody = route.body || raw.length > 0 ? parsed : undefined;
  state.body = parsedBody;
  const input = {
    params: route.params ? parseInput(route.params, match.params, 'params') : match.params,
    query: route.query ? parseInput(route.query, queryObject(ctx.URL.searchParams), 'query') : {},
    body: route.body ? parseInput(route.body, parsedBody, 'body') : undefined,
  };
  const handlerContext: RouteContext<unknown, unknown, unknown> = {
    ...input,
    caller: state.auth as Caller,
    session: state.session as SessionCaller,
    services: deps.services,
    requestId: state.requestId,
    clientIp: ctx.ip,
    headers: ctx.headers,
    unit: deps.unit,
  };

  const idempotencyKey = ctx.headers['idempotency-key'];
  if (!route.idempotent || idempotencyKey === undefined || !state.auth) {
    const result = await route.handler(handlerContext);
    stageAuditEntries(state as RequestState & { route: RouteDef }, handlerContext, result, deps.services);
    await commitUnit(deps, result);
    return result;
  }
  // Bound rather than a closure: under tsx every named closure costs an Object.defineProperty.
  const call = route.audit
    ? () => audited(state as RequestState & { route: RouteDef }, handlerContext, deps.services)
    : route.handler.bind(route, handlerContext);
  const key = Array.isArray(idempotencyKey) ? idempotencyKey.join(',') : idempotencyKey;
  return withIdempotency(deps, state.auth.team.id, key, requestFingerprint(ctx.method, state.path, raw), call);
}

/** A keyed route's handler with its audit entries staged before the stored answer joins the unit. */
async function audited(
  state: RequestState & { route: RouteDef },
  handlerContext: RouteContext<unknown, unknown, unknown>,
  services: Services,
): Promise<RouteResult> {
  const result = await state.route.handler(handlerContext);
  stageAuditEntries(state, handlerContext, result, services);
  return result;
}

/**
 * Commits what the handler staged, with the request's log entry, before the answer leaves. A
 * request that changed nothing commits nothing here: its log entry is written on its own.
 */
async function commitUnit(deps: PipelineDeps, result: RouteResult): Promise<void> {
  if (deps.unit.isEmpty || result.status >= 400) return;
  deps.logInto(deps.unit, result);
  crashPoint('api.before-commit');
  await deps.unit.commit();
  crashPoint('api.after-commit');
}

async function authenticate(ctx: Context, services: Services): Promise<Caller> {
  const header = ctx.get('authorization');
  if (!header) {
    const dashboard = await authenticateSessionAsCaller(ctx, services);
    if (dashboard) return dashboard;
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw new MissingApiKeyError('Missing API key: send Authorization: Bearer <API_KEY>');
  return services.apiKeys.authenticate(match[1]!, requestAudience(ctx));
}

function authorize(route: RouteDef, caller: Caller): void {
  if (route.permission === 'full_access' && caller.apiKey.permission !== 'full_access') {
    throw new RestrictedApiKeyError('This API key is restricted to sending emails');
  }
  if (route.permission === 'session' || route.permission === 'operator' || route.permission === null) {
    throw new InvalidPermissionError('This route is not reachable with an API key');
  }
  if (!hasScope(caller, route.scope))
    throw new InvalidPermissionError(`This credential lacks the scope ${route.scope}`);
}

/**
 * Runs a keyed request once: the stored answer joins the request's unit of work, so it commits
 * with the rows it answers for (see IdempotencyService). A failure releases the key.
 */
async function withIdempotency(
  deps: PipelineDeps,
  teamId: string,
  key: string,
  fingerprint: string,
  call: () => Promise<RouteResult>,
): Promise<RouteResult> {
  const { idempotency } = deps.services;
  const claim = await idempotency.claim(teamId, key, fingerprint);
  if (claim.kind === 'replay') {
    return { status: claim.response.status, body: claim.response.body, headers: { 'idempotent-replayed': 'true' } };
  }
  try {
    const result = await call();
    if (result.status < 200 || result.status >= 300) {
      await idempotency.release(claim);
      return result;
    }
    idempotency.completeWithin(deps.unit, claim, { status: result.status, body: result.body ?? null });
    await commitUnit(deps, result);
    return result;
  } catch (err) {
    await idempotency.release(claim).catch(() => {});
    throw err;
  }
}
