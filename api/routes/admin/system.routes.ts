import { z } from 'zod';
import { LOGS_GO_TO } from '../../../app/operator/system-status.js';
import { defineRoute } from '../../route.js';

const tag = 'admin';
const instant = z.string().describe('ISO 8601 timestamp (UTC)');

const systemShape = z.object({
  object: z.literal('system'),
  generated_at: instant,
  versions: z.object({
    app: z.string(),
    node: z.string(),
    database: z.string().nullable(),
    redis: z.string().nullable(),
  }),
  readiness: z.object({
    status: z.enum(['ok', 'degraded']),
    failed: z.array(z.string()),
    checks: z.array(
      z.object({ name: z.string(), ok: z.boolean(), duration_ms: z.number(), error: z.string().nullable() }),
    ),
  }),
  database: z.object({ dialect: z.enum(['sqlite', 'mysql']), ok: z.boolean(), error: z.string().nullable() }),
  redis: z.object({ configured: z.boolean(), ok: z.boolean().nullable(), error: z.string().nullable() }),
  processes: z.array(
    z.object({
      id: z.string(),
      node: z.string(),
      pid: z.number(),
      started_at: instant,
      expires_at: instant,
      alive: z.boolean(),
    }),
  ),
  metrics: z.object({
    enabled: z.boolean(),
    addresses: z.array(z.string()),
    by_process: z.array(z.object({ process: z.string(), address: z.string() })),
  }),
});

/** The appliance itself: versions, dependencies, processes, metrics addresses, recent errors. */
export const adminSystemRoutes = [
  defineRoute({
    method: 'GET',
    path: '/admin/system',
    operationId: 'adminGetSystem',
    summary:
      'Versions (app, Node.js, database, Redis), what /ready reports, processes holding a lease, metrics addresses',
    tag,
    permission: 'operator',
    scope: null,
    responses: { 200: { description: 'The system', schema: systemShape } },
    handler: async ({ services }) => ({
      status: 200,
      body: {
        object: 'system',
        generated_at: services.operatorConsole.now().toISOString(),
        ...(await services.operatorConsole.system()),
      },
    }),
  }),
  defineRoute({
    method: 'GET',
    path: '/admin/system/errors',
    operationId: 'adminListRecentErrors',
    summary: "The API's recent server errors (5xx answers) from the request log; says where process logs go",
    tag,
    permission: 'operator',
    scope: null,
    query: z.object({ limit: z.coerce.number().int().min(1).max(200).default(50) }).strict(),
    responses: {
      200: {
        description: 'Recent errors',
        schema: z.object({
          object: z.literal('error_log'),
          source: z.string(),
          logs_go_to: z.string(),
          data: z.array(
            z.object({
              at: instant,
              request_id: z.string().nullable(),
              method: z.string(),
              path: z.string(),
              status: z.number(),
              team_id: z.string().nullable(),
              error_name: z.string().nullable(),
            }),
          ),
        }),
      },
    },
    handler: async ({ query, services }) => ({
      status: 200,
      body: {
        object: 'error_log',
        source:
          'request_logs: API answers of 500 and above to team requests (keys and dashboard sessions), newest first, within the request-log retention',
        logs_go_to: LOGS_GO_TO,
        data: await services.operatorConsole.recentErrors(query.limit),
      },
    }),
  }),
];
