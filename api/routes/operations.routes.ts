import { z } from 'zod';
import { defineRoute } from '../route.js';

const SVG_POLICY = "default-src 'none'; style-src 'unsafe-inline'; sandbox";

export const operationRoutes = [
  defineRoute({
    method: 'GET',
    path: '/health',
    operationId: 'health',
    summary: 'Liveness: the process answers',
    tag: 'operations',
    permission: 'none',
    scope: null,
    responses: {
      200: {
        description: 'Alive',
        schema: z.object({ status: z.literal('ok'), version: z.string(), env: z.string() }),
      },
    },
    handler: async ({ services }) => ({ status: 200, body: services.readiness.health() }),
  }),
  defineRoute({
    method: 'GET',
    path: '/ready',
    operationId: 'ready',
    summary: 'Readiness: database, Redis and spool checks (503 when degraded)',
    tag: 'operations',
    permission: 'none',
    scope: null,
    responses: {
      200: { description: 'Ready' },
      503: { description: 'Degraded: one or more checks failed' },
    },
    handler: async ({ services }) => {
      const readiness = await services.readiness.ready();
      return { status: readiness.status === 'ok' ? 200 : 503, body: readiness };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/brand-assets/:file',
    operationId: 'getBrandAsset',
    summary: 'A brand-kit file, public so that it can be shown in sent email',
    tag: 'team',
    permission: 'none',
    scope: null,
    params: z.object({ file: z.string().max(80) }),
    responses: { 200: { description: 'The file', contentType: 'image/*' } },
    handler: async ({ params, services }) => {
      const file = await services.brandAssets.read(params.file);
      return {
        status: 200,
        raw: { contentType: file.contentType, bytes: file.bytes },
        // Content-addressed, so it never changes; SVG is sandboxed in case a browser opens it directly.
        headers: {
          'cache-control': 'public, max-age=31536000, immutable',
          'x-content-type-options': 'nosniff',
          'content-security-policy': SVG_POLICY,
        },
      };
    },
  }),
];
