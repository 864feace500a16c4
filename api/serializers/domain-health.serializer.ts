import type { DomainHealth } from '../../core/platform/doctor/domain-health.js';

/** GET /domains/{id}/health: the domain named, the worst outcome, and each check as the service made it. */
export function serializeDomainHealth(health: DomainHealth) {
  return {
    object: 'domain_health' as const,
    domain_id: health.domain.id,
    name: health.domain.name,
    status: health.status,
    checked_at: health.checkedAt.toISOString(),
    checks: health.checks,
  };
}
