import type { AuditEvent, AuditMetadata } from '../core/platform/audit/audit.types.js';
import type { RouteResult } from './route.js';

/** The id of the resource a route answered with (`body.id`), or null. */
export function answeredId(result: RouteResult): string | null {
  const body = result.body as { id?: unknown } | null | undefined;
  return typeof body?.id === 'string' ? body.id : null;
}

/** One audit event on one resource: the shape nearly every route's `audit` returns. */
export function auditEvent(
  action: string,
  resourceType: string,
  resourceId: string | null,
  metadata?: AuditMetadata,
): AuditEvent {
  return { action, resource: { type: resourceType, id: resourceId }, ...(metadata ? { metadata } : {}) };
}
