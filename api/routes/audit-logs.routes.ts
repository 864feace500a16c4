import { z } from 'zod';
import { isTeamAdmin, type Caller } from '../../core/platform/auth/caller.js';
import { listAuditQuerySchema } from '../../core/platform/audit/audit.schemas.js';
import { listEnvelope } from '../../core/shared/pagination/list-query.js';
import { InvalidPermissionError } from '../../lib/errors.js';
import { defineRoute } from '../route.js';
import { listSchema, uuidParam } from '../schemas.js';
import { serializeAuditEntry } from '../serializers/audit-log.serializer.js';
import { auditEntryShape } from './audit-log-shapes.js';

const tag = 'audit-logs';

/** A team admin's session or a full_access key (never a plain member, never an OAuth token: no scope). */
function assertMayRead(caller: Caller): void {
  if (!isTeamAdmin(caller)) throw new InvalidPermissionError('Only a team owner or admin can read the audit log');
}

export const auditLogRoutes = [
  defineRoute({
    method: 'GET',
    path: '/audit-logs',
    operationId: 'listAuditLogs',
    summary: 'List the team audit log, newest first (who did what, when and from where)',
    tag,
    permission: 'full_access',
    scope: null,
    query: listAuditQuerySchema,
    responses: { 200: { description: 'A page of audit log entries', schema: listSchema(auditEntryShape) } },
    handler: async ({ query, caller, services }) => {
      assertMayRead(caller);
      const { entries, hasMore } = await services.audit.list(query, caller.team.id);
      return { status: 200, body: listEnvelope(entries.map(serializeAuditEntry), hasMore) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/audit-logs/:audit_log_id',
    operationId: 'getAuditLog',
    summary: 'Retrieve one audit log entry',
    tag,
    permission: 'full_access',
    scope: null,
    params: z.object({ audit_log_id: uuidParam('Audit log entry id') }),
    isolation: { param: 'audit_log_id', resource: 'audit_log' },
    responses: { 200: { description: 'The entry', schema: auditEntryShape } },
    handler: async ({ params, caller, services }) => {
      assertMayRead(caller);
      return { status: 200, body: serializeAuditEntry(await services.audit.get(params.audit_log_id, caller.team.id)) };
    },
  }),
];
