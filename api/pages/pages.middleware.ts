import type { Context, Middleware } from 'koa';
import type { Services } from '../../app/services.js';
import type { SessionCaller } from '../../core/accounts/account.types.js';
import type { Caller } from '../../core/platform/auth/caller.js';
import { AppError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import type { Logger } from '../../lib/logger.js';
import { oversizedBodyHeaders } from '../request-body.js';
import type { RouteContext, RouteDef, RouteResult } from '../route.js';
import { Router } from '../router.js';
import { oauthJson } from '../routes/oauth/oauth-http.js';
import { FormTooLargeError, readPageForm } from './page-form.js';
import { messagePage, pageCsp } from './page-layout.js';

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
    if (err instanceof FormTooLargeError) return tooLarge(route, err);
    if (err instanceof AppError && err.statusCode === 404)
      return messagePage(404, 'Link not valid', 'This link is not valid (or the address was removed).');
    deps.logger.error({ err, path: ctx.path }, 'page request failed');
    return messagePage(503, 'Try again', 'Something went wrong on our side. Please try again in a minute.');
  }
}

/**
 * A body over the limit: 413, and the connection closes (the rest is never read). In the route's
 * own refusal shape: the OAuth endpoints (whose refusals are declared JSON) answer the OAuth
 * error shape, as the spec asks of them; the pages an HTML page.
 */
function tooLarge(route: RouteDef, err: FormTooLargeError): RouteResult {
  if (route.responses[400]?.contentType === 'application/json') {
    const body = { error: 'invalid_request', error_description: `The body is too large: ${err.message}` };
    return oauthJson(413, body, oversizedBodyHeaders());
  }
  const page = messagePage(413, 'Too large', 'That form was too large.');
  return { ...page, headers: { ...page.headers, ...oversizedBodyHeaders() } };
}

function write(ctx: Context, result: RouteResult): void {
  ctx.set({
    'cache-control': 'no-store',
    'content-security-policy': pageCsp(),
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
  });
  for (const [name, value] of Object.entries(result.headers ?? {})) ctx.set(name, value);
  ctx.status = result.status;
  ctx.type = result.raw?.contentType ?? 'text/html; charset=utf-8';
  ctx.body = result.raw?.bytes ?? '';
}
