import { z } from 'zod';
import { listOperatorAuditQuerySchema } from '../../../core/platform/audit/audit.schemas.js';
import { listEnvelope } from '../../../core/shared/pagination/list-query.js';
import { defineRoute } from '../../route.js';
import { listSchema, uuidParam } from '../../schemas.js';
import { serializeOperatorAuditEntry } from '../../serializers/audit-log.serializer.js';
import { operatorAuditEntryShape } from '../audit-log-shapes.js';

const tag = 'admin';

/** The operator's view of every team's audit log (filter with team_id). */
export const adminAuditLogRoutes = [
  defineRoute({
    method: 'GET',
    path: '/admin/audit-logs',
    operationId: 'adminListAuditLogs',
    summary: 'Audit log entries across teams, newest first',
    tag,
    permission: 'operator',
    scope: null,
    query: listOperatorAuditQuerySchema,
    responses: { 200: { description: 'A page of entries', schema: listSchema(operatorAuditEntryShape) } },
    handler: async ({ query, services }) => {
      const { entries, hasMore } = await services.audit.list(query);
      return { status: 200, body: listEnvelope(entries.map(serializeOperatorAuditEntry), hasMore) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/admin/audit-logs/:audit_log_id',
    operationId: 'adminGetAuditLog',
    summary: 'One audit log entry of any team',
    tag,
    permission: 'operator',
    scope: null,
    params: z.object({ audit_log_id: uuidParam('Audit log entry id') }),
    responses: { 200: { description: 'The entry', schema: operatorAuditEntryShape } },
    handler: async ({ params, services }) => ({
      status: 200,
      body: serializeOperatorAuditEntry(await services.audit.get(params.audit_log_id)),
    }),
  }),
];
