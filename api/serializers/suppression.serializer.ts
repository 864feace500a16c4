import type { Suppression } from '../../core/suppressions/suppression.types.js';

/** List entries: the suppression without `object` (what the SDK's list type describes). */
export function serializeSuppressionItem(s: Suppression) {
  return { id: s.id, email: s.email, origin: s.origin, source_id: s.sourceId, created_at: s.createdAt.toISOString() };
}

export function serializeSuppression(s: Suppression) {
  return { object: 'suppression' as const, ...serializeSuppressionItem(s) };
}
