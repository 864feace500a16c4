import type { Context, Middleware } from 'koa';
import { DashboardFiles, type DashboardFile } from './dashboard-files.js';
import { DASHBOARD_HEADERS } from './dashboard-policy.js';
import { legacyLinkTarget } from './legacy-links.js';

export const DASHBOARD_PATH = '/dashboard';

/**
 * The dashboard's static files under /dashboard/: hashed assets (immutable, gzip when the
 * browser takes it), and index.html for every other path below it, so a client route opened
 * directly (a link in a mail, a reload) starts the app. A browser asking for `/` (Accept:
 * text/html) is sent to the dashboard; API clients keep their answers. Without a complete build
 * the dashboard answers one page that says how to build it, never a half-built app.
 */
export function dashboardMiddleware(options: { dir: string }): Middleware {
  const files = new DashboardFiles(options.dir);
  return async (ctx, next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    const path = ctx.path;
    const legacy = legacyLinkTarget(path, ctx.querystring, wantsHtml(ctx));
    if (legacy) return redirect(ctx, legacy);
    if (path === '/' && wantsHtml(ctx)) return redirect(ctx, `${DASHBOARD_PATH}/`);
    if (path === DASHBOARD_PATH)
      return redirect(ctx, `${DASHBOARD_PATH}/${ctx.querystring ? `?${ctx.querystring}` : ''}`);
    if (!path.startsWith(`${DASHBOARD_PATH}/`)) return next();
    if (!files.built) return notBuilt(ctx);
    const relative = path.slice(DASHBOARD_PATH.length + 1);
    const asset = relative.startsWith('assets/') ? files.get(relative) : undefined;
    if (relative.startsWith('assets/') && !asset) {
      ctx.status = 404;
      ctx.type = 'text/plain; charset=utf-8';
      ctx.body = 'Not found';
      return;
    }
    serve(ctx, asset ?? files.get('index.html')!);
  };
}

const wantsHtml = (ctx: Context) => (ctx.get('accept') || '').includes('text/html');

function redirect(ctx: Context, to: string) {
  ctx.status = 302;
  ctx.set('location', to);
  ctx.set('cache-control', 'no-store');
  ctx.type = 'text/plain; charset=utf-8';
  ctx.body = `Redirecting to ${to}`;
}

function serve(ctx: Context, file: DashboardFile) {
  for (const [name, value] of Object.entries(DASHBOARD_HEADERS)) ctx.set(name, value);
  // index.html names the current assets: always asked again, so an upgrade is seen at once.
  ctx.set('cache-control', file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
  ctx.set('vary', 'accept-encoding');
  ctx.type = file.contentType;
  if (file.gzip && /\bgzip\b/.test(ctx.get('accept-encoding'))) {
    ctx.set('content-encoding', 'gzip');
    ctx.body = file.gzip;
  } else {
    ctx.body = file.bytes;
  }
  ctx.status = 200;
}

function notBuilt(ctx: Context) {
  for (const [name, value] of Object.entries(DASHBOARD_HEADERS)) ctx.set(name, value);
  ctx.status = 503;
  ctx.set('cache-control', 'no-store');
  ctx.type = 'text/html; charset=utf-8';
  ctx.body =
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Dashboard not built</title></head><body>' +
    '<h1>The dashboard is not built</h1><p>Run <code>npm run build</code> (or <code>npm ci</code>, which builds) in the ' +
    'Mailroom folder, then reload this page. The API works without it.</p></body></html>';
}
