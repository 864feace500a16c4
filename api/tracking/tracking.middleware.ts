import type { Context, Middleware } from 'koa';
import type { Services } from '../../app/services.js';
import type { Logger } from '../../lib/logger.js';
import type { SessionCaller } from '../../core/accounts/account.types.js';
import type { Caller } from '../../core/platform/auth/caller.js';
import { newId } from '../../lib/ids.js';
import type { RouteContext, RouteDef, RouteResult } from '../route.js';
import { Router } from '../router.js';

const text = (status: number, body: string): RouteResult => ({
  status,
  headers: { 'cache-control': 'no-store' },
  raw: { contentType: 'text/plain; charset=utf-8', bytes: Buffer.from(body) },
});

/**
 * Requests whose Host is a tracking host (the configured one, or a domain's tracking subdomain
 * CNAMEd to it) are answered here from the route table's tracking routes and never reach the
 * API pipeline: recipients' mail clients send no key and often no User-Agent. Anything else on
 * a tracking host is 404.
 */
export function trackingMiddleware(deps: { services: Services; routes: RouteDef[]; logger: Logger }): Middleware {
  const router = new Router(deps.routes);
  return async (ctx, next) => {
    if (!(await isTrackingRequest(ctx, deps))) return next();
    write(ctx, await answer(ctx, router, deps));
  };
}

async function answer(
  ctx: Context,
  router: Router,
  deps: { services: Services; logger: Logger },
): Promise<RouteResult> {
  const match = router.match(ctx.method === 'HEAD' ? 'GET' : ctx.method, ctx.path);
  if (match.kind !== 'route') return text(404, 'Not found');
  const parsed = match.route.params?.safeParse(match.params);
  if (parsed && !parsed.success) return text(404, 'Not found');
  try {
    const unit = deps.services.units.begin();
    // No credential on a tracking host: `caller` is absent, as on the API's permission-'none' routes.
    const context: RouteContext<unknown, unknown, unknown> = {
      ...{ params: parsed?.data ?? match.params, query: {}, body: undefined, caller: null as unknown as Caller, unit },
      session: null as unknown as SessionCaller,
      ...{ services: deps.services, requestId: newId(), clientIp: ctx.ip, headers: ctx.headers },
    };
    const result = await match.route.handler(context);
    if (!unit.isEmpty) await unit.commit();
    if (result.error)
      deps.logger.error({ err: result.error, path: ctx.path }, 'tracking request answered despite a failure');
    return result;
  } catch (err) {
    deps.logger.error({ err, path: ctx.path }, 'tracking request failed');
    return text(503, 'Temporarily unavailable, try again');
  }
}

function write(ctx: Context, result: RouteResult): void {
  for (const [name, value] of Object.entries(result.headers ?? {})) ctx.set(name, value);
  ctx.status = result.status;
  ctx.type = result.raw?.contentType ?? 'text/plain; charset=utf-8';
  ctx.body = result.raw?.bytes ?? '';
}

/** A failed host look-up (database down) falls through to the API, which answers 503 its own way. */
async function isTrackingRequest(ctx: Context, deps: { services: Services; logger: Logger }): Promise<boolean> {
  try {
    return await deps.services.tracking.isTrackingHost(ctx.hostname);
  } catch (err) {
    deps.logger.error({ err, host: ctx.hostname }, 'could not tell whether this is a tracking host');
    return false;
  }
}
