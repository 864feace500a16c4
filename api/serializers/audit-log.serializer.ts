import type { AuditEntry } from '../../core/platform/audit/audit.types.js';

export function serializeAuditEntry(entry: AuditEntry) {
  return {
    object: 'audit_log' as const,
    id: entry.id,
    action: entry.action,
    actor: { type: entry.actor.type, id: entry.actor.id, name: entry.actor.name },
    resource: { type: entry.resource.type, id: entry.resource.id },
    metadata: entry.metadata,
    ip: entry.ip,
    user_agent: entry.userAgent,
    created_at: entry.createdAt.toISOString(),
  };
}

/** The operator's view names the team of each entry. */
export function serializeOperatorAuditEntry(entry: AuditEntry) {
  return { ...serializeAuditEntry(entry), team_id: entry.teamId };
}
