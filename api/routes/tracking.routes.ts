import { z } from 'zod';
import { defineRoute, type RouteResult } from '../route.js';

/** A 1x1 transparent GIF (43 bytes). */
export const PIXEL_GIF = Buffer.from('R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==', 'base64');

const tag = 'tracking';
const params = z.object({ token: z.string().regex(/^[A-Za-z0-9_-]+$/) });
const text = (status: number, body: string, headers: Record<string, string> = {}): RouteResult => ({
  status,
  headers,
  raw: { contentType: 'text/plain; charset=utf-8', bytes: Buffer.from(body) },
});

/** IPv4 clients of a dual-stack listener appear as ::ffff:a.b.c.d; events carry a.b.c.d. */
function visitorIp(ip: string): string | null {
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

const visitor = (clientIp: string, headers: Record<string, string | string[] | undefined>) => ({
  ip: visitorIp(clientIp),
  userAgent: (headers['user-agent'] as string | undefined) || null,
});

/** Served on tracking hosts only (see the tracking middleware); no credential. */
export const trackingRoutes = [
  defineRoute({
    method: 'GET',
    path: '/o/:token',
    surface: 'tracking',
    operationId: 'trackOpen',
    summary: 'Open pixel: records email.opened (once per recipient and minute) and answers a 1x1 GIF whatever happens',
    tag,
    permission: 'none',
    scope: null,
    params,
    responses: { 200: { description: 'A transparent GIF', contentType: 'image/gif' } },
    handler: async ({ params, services, clientIp, headers }) => {
      // The pixel is answered whatever happens: a broken image helps no one (failures are logged by the caller's logger).
      const recorded = await services.tracking.open(params.token, visitor(clientIp, headers)).then(
        () => null,
        (err: unknown) => err,
      );
      return {
        status: 200,
        headers: { 'cache-control': 'no-store' },
        raw: { contentType: 'image/gif', bytes: PIXEL_GIF },
        error: recorded ?? undefined,
      };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/c/:token',
    surface: 'tracking',
    operationId: 'trackClick',
    summary: 'Click redirect: records email.clicked and redirects to the link signed into the token',
    tag,
    permission: 'none',
    scope: null,
    params,
    responses: {
      302: { description: 'Redirect to the original link' },
      404: { description: 'Unknown or forged token', contentType: 'text/plain' },
    },
    handler: async ({ params, services, clientIp, headers }) => {
      const target = await services.tracking.click(params.token, visitor(clientIp, headers));
      if (!target) return text(404, 'Not found', { 'cache-control': 'no-store' });
      return text(302, 'Redirecting', { 'cache-control': 'no-store', location: headerSafe(target) });
    },
  }),
];
