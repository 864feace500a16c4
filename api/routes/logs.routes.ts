import { z } from 'zod';
import { listEnvelope } from '../../core/shared/pagination/list-query.js';
import { listLogsQuerySchema } from '../../core/platform/request-logs/request-log.schemas.js';
import { defineRoute } from '../route.js';
import { listSchema, uuidParam } from '../schemas.js';
import { serializeLog, serializeLogItem } from '../serializers/request-log.serializer.js';

export const logItem = z.object({
  object: z.literal('log'),
  id: z.string(),
  created_at: z.string(),
  endpoint: z.string(),
  method: z.string(),
  response_status: z.number().int(),
  user_agent: z.string().nullable(),
  source: z.string(),
  request_id: z.string(),
  latency_ms: z.number().int(),
  api_key_id: z.string().nullable(),
});
export const logDetail = logItem.extend({
  request_body: z.unknown(),
  response_body: z.unknown(),
  email_id: z.string().nullable(),
});
const tag = 'logs';

export const logRoutes = [
  defineRoute({
    method: 'GET',
    path: '/logs',
    operationId: 'listLogs',
    summary: 'List request logs, newest first',
    tag,
    permission: 'full_access',
    scope: null,
    query: listLogsQuerySchema,
    responses: { 200: { description: 'A page of logs', schema: listSchema(logItem) } },
    handler: async ({ query, caller, services }) => {
      const { logs, hasMore } = await services.requestLogs.list(caller.team.id, query);
      return { status: 200, body: listEnvelope(logs.map(serializeLogItem), hasMore) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/logs/:log_id',
    operationId: 'getLog',
    summary: 'Retrieve one request log with its (redacted) bodies',
    tag,
    permission: 'full_access',
    scope: null,
    params: z.object({ log_id: uuidParam('Log id') }),
    isolation: { param: 'log_id', resource: 'log' },
    responses: { 200: { description: 'The log', schema: logDetail } },
    handler: async ({ params, caller, services }) => ({
      status: 200,
      body: serializeLog(await services.requestLogs.get(caller.team.id, params.log_id)),
    }),
  }),
];
