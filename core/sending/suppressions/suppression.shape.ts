import type { Suppression } from './suppression.types.js';

/**
 * The suppression's public shape: what the API answers and what suppression.* webhook events
 * carry. List entries go without `object` (what the SDK's list type describes).
 */
export function publicSuppressionItem(s: Suppression) {
  return { id: s.id, email: s.email, origin: s.origin, source_id: s.sourceId, created_at: s.createdAt.toISOString() };
}

export function publicSuppression(s: Suppression) {
  return { object: 'suppression' as const, ...publicSuppressionItem(s) };
}
