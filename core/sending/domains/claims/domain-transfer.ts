import type { Knex } from 'knex';
import type { Clock } from '../../../../lib/clock.js';
import type { EventLog } from '../../../events/log/event-log.js';
import type { AuditRecorder } from '../../../platform/audit/audit-log.service.js';
import { APPLIANCE_ACTOR, type AuditMetadata } from '../../../platform/audit/audit.types.js';
import { DomainRepository } from '../domain.repository.js';
import { eventData, type DomainService } from '../domain.service.js';
import type { Domain } from '../domain.types.js';
import { RUNNING_CLAIM_STATUSES, type ClaimStatus, type DomainClaim } from './domain-claim.types.js';

/**
 * Moves a name to the claiming team, in one transaction: the owner's domain is deleted (with
 * domain.deleted to the owner), the placeholder becomes the claimer's ordinary domain (with
 * domain.updated to the claimer; its records still have to be published and verified, so it
 * stays not_started until POST /domains/{id}/verify passes), and the claim is completed.
 * Nothing else of the owner moves: its emails, logs and suppressions belong to its team, and
 * the placeholder has its own id and keys, so none of them can reach the new owner.
 *
 * The owner's sending keys pinned to that domain are revoked, not unpinned: unpinning would
 * quietly widen a key that was limited to one domain to every domain of the team, and a key
 * left pinned to a deleted domain could never send again anyway. Revoked, it answers
 * 403 restricted_api_key, which tells its holder what happened.
 *
 * The owner's domain is deleted here, not through DomainService.remove(): that one also takes
 * a managed domain's records out of its zone, and the claimer has just shown it controls that
 * zone now, so the previous team's automation must not touch it.
 *
 * Returns false when the claim was no longer running (superseded or canceled meanwhile).
 */
export async function transferDomain(
  deps: { knex: Knex; clock: Clock; events: EventLog; domains: DomainService; audit: AuditRecorder },
  claim: DomainClaim,
  placeholder: Domain,
  owner: Domain | undefined,
): Promise<boolean> {
  const now = deps.clock.now();
  return deps.knex.transaction(async (trx) => {
    // Conditional on the status, so a concurrent supersede or cancel wins cleanly.
    const completed = await trx('domain_claims')
      .where({ id: claim.id })
      .whereIn('status', RUNNING_CLAIM_STATUSES as ClaimStatus[])
      .update({ status: 'completed', blocked_reason: null, completed_at: now, next_check_at: null, updated_at: now });
    if (completed !== 1) return false;
    const domains = new DomainRepository(trx);
    if (owner) {
      const ownerView = deps.domains.view(owner, await domains.keysOf(owner.id));
      const revokedKeys = await trx('api_keys')
        .where({ domain_id: owner.id })
        .whereIn('status', ['active', 'suspended'])
        .update({ status: 'revoked', revoked_at: now });
      await domains.delete(owner.id);
      await deps.events.record(owner.teamId, 'domain.deleted', eventData(ownerView), trx);
      await auditTransfer(deps.audit, trx, owner.teamId, 'domain.claimed_away', owner, revokedKeys);
    }
    const moved: Domain = { ...placeholder, updatedAt: now };
    await domains.update(placeholder.id, { updatedAt: now });
    const view = deps.domains.view(moved, await domains.keysOf(placeholder.id));
    await deps.events.record(claim.teamId, 'domain.updated', eventData(view), trx);
    await auditTransfer(deps.audit, trx, claim.teamId, 'domain.claimed', placeholder, null);
    return true;
  });
}

/** Both teams' audit logs record the move, as the appliance's doing (DNS proved the claim). */
async function auditTransfer(
  audit: AuditRecorder,
  trx: Knex,
  teamId: string,
  action: 'domain.claimed' | 'domain.claimed_away',
  domain: Domain,
  revokedKeys: number | null,
): Promise<void> {
  const metadata: AuditMetadata =
    revokedKeys === null ? { name: domain.name } : { name: domain.name, revoked_api_keys: revokedKeys };
  await audit.record(
    { teamId, actor: APPLIANCE_ACTOR, action, resource: { type: 'domain', id: domain.id }, metadata },
    undefined,
    trx,
  );
}
