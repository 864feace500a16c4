import type { Context, Middleware } from 'koa';
import type { Services } from '../../app/services.js';
import type { SessionCaller } from '../../core/accounts/account.types.js';
import type { Caller } from '../../core/platform/auth/caller.js';
import { AppError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import type { Logger } from '../../lib/logger.js';
import type { RouteContext, RouteDef, RouteResult } from '../route.js';
import { Router } from '../router.js';
import { FormTooLargeError, readPageForm } from './page-form.js';
import { messagePage } from './page-layout.js';

const MAX_FORM_BYTES = 64 * 1024;

/**
 * Pages people open from an email (unsubscribe, preferences), answered before and outside the
 * API on the public URL: no key, no User-Agent rule, HTML answers, and headers that keep the
 * page from being framed or leaking its signed URL. Paths that are not pages go on to the API.
 */
export function pagesMiddleware(deps: { services: Services; routes: RouteDef[]; logger: Logger }): Middleware {
  const router = new Router(deps.routes);
  return async (ctx, next) => {
    const match = router.match(ctx.method === 'HEAD' ? 'GET' : ctx.method, ctx.path);
    if (match.kind !== 'route') return next();
    const result = await answer(ctx, match.route, match.params, deps);
    write(ctx, result);
  };
}

async function answer(
  ctx: Context,
  route: RouteDef,
  params: Record<string, string>,
  deps: { services: Services; logger: Logger },
): Promise<RouteResult> {
  const parsed = route.params?.safeParse(params);
  if (parsed && !parsed.success) return messagePage(404, 'Link not valid', 'This link is not valid.');
  try {
    const body = ctx.method === 'POST' || ctx.method === 'PUT' ? await readPageForm(ctx, MAX_FORM_BYTES) : undefined;
    const context: RouteContext<unknown, unknown, unknown> = {
      ...{ params: parsed?.data ?? params, query: ctx.query, body, caller: null as unknown as Caller },
      session: null as unknown as SessionCaller,
      ...{ services: deps.services, requestId: newId(), clientIp: ctx.ip, headers: ctx.headers },
      unit: deps.services.units.begin(),
    };
    const result = await route.handler(context);
    if (!context.unit.isEmpty) await context.unit.commit();
    return result;
  } catch (err) {
    if (err instanceof FormTooLargeError) return messagePage(413, 'Too large', 'That form was too large.');
    if (err instanceof AppError && err.statusCode === 404)
      return messagePage(404, 'Link not valid', 'This link is not valid (or the address was removed).');
    deps.logger.error({ err, path: ctx.path }, 'page request failed');
    return messagePage(503, 'Try again', 'Something went wrong on our side. Please try again in a minute.');
  }
}

function write(ctx: Context, result: RouteResult): void {
  ctx.set({
    'cache-control': 'no-store',
    'content-security-policy':
      "default-src 'none'; img-src https: http: data:; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
  });
  for (const [name, value] of Object.entries(result.headers ?? {})) ctx.set(name, value);
  ctx.status = result.status;
  ctx.type = result.raw?.contentType ?? 'text/html; charset=utf-8';
  ctx.body = result.raw?.bytes ?? '';
}
