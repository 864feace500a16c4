import { z } from 'zod';
import { OPERATOR_LOG_TEAM_ID } from '../../../core/platform/request-logs/request-log.service.js';
import { listLogsQuerySchema } from '../../../core/platform/request-logs/request-log.schemas.js';
import { listEnvelope } from '../../../core/shared/pagination/list-query.js';
import { defineRoute } from '../../route.js';
import { listSchema, uuidParam } from '../../schemas.js';
import { serializeLog, serializeLogItem } from '../../serializers/request-log.serializer.js';
import { logDetail, logItem } from '../logs.routes.js';

const tag = 'admin';

/**
 * The admin API's own request log: every request an operator made (an operator belongs to no
 * team, so these are in no team's GET /logs), with the same filters, redaction and retention.
 */
export const adminLogRoutes = [
  defineRoute({
    method: 'GET',
    path: '/admin/logs',
    operationId: 'adminListLogs',
    summary: "The admin API's request log (operators' requests), newest first",
    tag,
    permission: 'operator',
    scope: null,
    query: listLogsQuerySchema,
    responses: { 200: { description: 'A page of logs', schema: listSchema(logItem) } },
    handler: async ({ query, services }) => {
      const { logs, hasMore } = await services.requestLogs.list(OPERATOR_LOG_TEAM_ID, query);
      return { status: 200, body: listEnvelope(logs.map(serializeLogItem), hasMore) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/admin/logs/:log_id',
    operationId: 'adminGetLog',
    summary: 'One request of the admin API with its (redacted) bodies',
    tag,
    permission: 'operator',
    scope: null,
    params: z.object({ log_id: uuidParam('Log id') }),
    responses: { 200: { description: 'The log', schema: logDetail }, 404: { description: 'not_found' } },
    handler: async ({ params, services }) => ({
      status: 200,
      body: serializeLog(await services.requestLogs.get(OPERATOR_LOG_TEAM_ID, params.log_id)),
    }),
  }),
];
