import { claimRecordValue } from './domain-claim.rules.js';
import type { DomainClaim } from './domain-claim.types.js';

/**
 * The claim as the API shows it: the `resend` SDK's DomainClaim (object 'domain_claim'), the
 * TXT record at the claimed name itself, as the reference OpenAPI's DomainClaimRecord says.
 */
export function publicDomainClaim(claim: DomainClaim) {
  return {
    object: 'domain_claim' as const,
    id: claim.id,
    name: claim.name,
    status: claim.status,
    domain_id: claim.domainId,
    region: claim.region,
    record: { type: 'TXT' as const, name: claim.name, value: claimRecordValue(claim.token), ttl: 'Auto' as const },
    blocked_reason: claim.blockedReason,
    failure_reason: claim.failureReason,
    created_at: claim.createdAt.toISOString(),
    expires_at: claim.expiresAt.toISOString(),
  };
}
