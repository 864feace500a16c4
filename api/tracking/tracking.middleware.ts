import type { Context, Middleware } from 'koa';
import type { TrackingService, Visitor } from '../../core/sending/tracking/tracking.service.js';
import type { Logger } from '../../lib/logger.js';

/** A 1x1 transparent GIF (43 bytes). */
export const PIXEL_GIF = Buffer.from('R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==', 'base64');

const TRACKING_PATH = /^\/([oc])\/([A-Za-z0-9_-]+)$/;

/**
 * Requests whose Host is a tracking host (the configured one, or a domain's tracking subdomain
 * CNAMEd to it) are served here and never reach the API pipeline: recipients' mail clients send
 * no key and often no User-Agent. `GET /o/<token>` is the open pixel, `GET /c/<token>` redirects
 * to the link signed into the token; anything else on a tracking host is 404.
 */
export function trackingMiddleware(deps: { tracking: TrackingService; logger: Logger }): Middleware {
  return async (ctx, next) => {
    if (!(await isTrackingRequest(ctx, deps))) return next();
    ctx.set('cache-control', 'no-store');
    const match = ctx.method === 'GET' ? TRACKING_PATH.exec(ctx.path) : null;
    if (!match) return notFound(ctx);
    const token = match[2]!;
    const visitor: Visitor = { ip: clientIp(ctx.ip), userAgent: ctx.get('user-agent') || null };
    if (match[1] === 'o') {
      // The pixel is answered whatever happens: a broken image helps no one.
      await deps.tracking.open(token, visitor).catch((err: unknown) => deps.logger.error({ err }, 'could not record an open'));
      ctx.status = 200;
      ctx.type = 'image/gif';
      ctx.body = PIXEL_GIF;
      return;
    }
    let target: string | null;
    try {
      target = await deps.tracking.click(token, visitor);
    } catch (err) {
      deps.logger.error({ err }, 'could not record a click');
      ctx.status = 503;
      ctx.type = 'text/plain; charset=utf-8';
      ctx.body = 'Temporarily unavailable, try again';
      return;
    }
    if (!target) return notFound(ctx);
    ctx.status = 302;
    ctx.set('location', headerSafe(target));
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = 'Redirecting';
  };
}

/** A failed host look-up (database down) falls through to the API, which answers 503 its own way. */
async function isTrackingRequest(ctx: Context, deps: { tracking: TrackingService; logger: Logger }): Promise<boolean> {
  try {
    return await deps.tracking.isTrackingHost(ctx.hostname);
  } catch (err) {
    deps.logger.error({ err, host: ctx.hostname }, 'could not tell whether this is a tracking host');
    return false;
  }
}

function notFound(ctx: Context): void {
  ctx.status = 404;
  ctx.type = 'text/plain; charset=utf-8';
  ctx.body = 'Not found';
}

/** IPv4 clients of a dual-stack listener appear as ::ffff:a.b.c.d; events carry a.b.c.d. */
function clientIp(ip: string): string | null {
  if (!ip) return null;
  return ip.startsWith('::ffff:') && ip.includes('.') ? ip.slice(7) : ip;
}

/**
 * Links may hold spaces or non-ASCII characters that a header cannot: those are percent-encoded
 * (as a browser would before following them); existing escapes are left alone.
 */
function headerSafe(url: string): string {
  return url.replace(/[^\x21-\x7e]+/g, (run) => encodeURIComponent(run));
}
