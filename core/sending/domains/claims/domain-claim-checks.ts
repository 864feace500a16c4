import type { Knex } from 'knex';
import type { LookupCache } from '../../../../lib/cache/lookup-cache.js';
import type { Clock } from '../../../../lib/clock.js';
import type { DnsLookup } from '../../../../lib/dns/dns-resolver.js';
import type { EventLog } from '../../../events/log/event-log.js';
import { nextCheckDelayMs } from '../domain-verification.service.js';
import type { DomainService } from '../domain.service.js';
import type { AuditRecorder } from '../../../platform/audit/audit-log.service.js';
import { DomainClaimRepository } from './domain-claim.repository.js';
import { blockedReasonOf, BLOCKED_RECHECK_MS, MAX_TRANSFER_ATTEMPTS, txtMatches } from './domain-claim.rules.js';
import type { DomainClaim } from './domain-claim.types.js';
import { transferDomain } from './domain-transfer.js';
import { ownerFacts } from './owner-facts.js';

export type DomainClaimChecksDeps = {
  knex: Knex;
  clock: Clock;
  lookup: DnsLookup;
  events: EventLog;
  domains: DomainService;
  /** Verified domains are cached by name: forgotten once a transfer committed. */
  cache: LookupCache;
  /** Both teams' audit logs record a completed transfer. */
  audit: AuditRecorder;
};

/**
 * The scheduler's side of claims (check-domain-claims job): expires claims out of time, looks
 * for the TXT record of those asked to verify, re-evaluates blocked ones, and transfers the
 * name when nothing blocks it. Each claim moves at most one step per round.
 */
export class DomainClaimChecks {
  private readonly repository: DomainClaimRepository;

  constructor(private readonly deps: DomainClaimChecksDeps) {
    this.repository = new DomainClaimRepository(deps.knex);
  }

  async runDueChecks(limit = 100): Promise<{ checked: number; changed: number }> {
    const due = await this.repository.due(this.deps.clock.now(), limit);
    let changed = 0;
    for (const claim of due) if ((await this.step(claim)) !== claim.status) changed++;
    return { checked: due.length, changed };
  }

  /** One move of one claim; returns its status afterwards. */
  private async step(claim: DomainClaim): Promise<DomainClaim['status']> {
    const now = this.deps.clock.now();
    // A verified claim is past proving anything: it only waits for its transfer, so it never expires.
    if (claim.status !== 'verified' && claim.expiresAt <= now) {
      return this.set(claim, { status: 'expired', blockedReason: null, nextCheckAt: null });
    }
    if (!claim.nextCheckAt || claim.nextCheckAt > now) return claim.status;
    if (claim.status === 'pending') {
      const txt = await this.deps.lookup.txt(claim.name);
      const found = txt.kind === 'found' && txt.values.some((value) => txtMatches(value, claim.token));
      if (!found) {
        const attempts = claim.checkAttempts + 1;
        return this.set(claim, {
          checkAttempts: attempts,
          nextCheckAt: new Date(now.getTime() + nextCheckDelayMs(attempts)),
        });
      }
      if ((await this.set(claim, { status: 'verified', verifiedAt: now, checkAttempts: 0 })) !== 'verified')
        return claim.status;
      claim = { ...claim, status: 'verified', verifiedAt: now, checkAttempts: 0 };
    }
    return this.settle(claim, now);
  }

  /** A verified or blocked claim: blocked while a rule protects the owner, else transferred. */
  private async settle(claim: DomainClaim, now: Date): Promise<DomainClaim['status']> {
    const placeholder = claim.domainId ? await this.deps.domains.repository.findById(claim.domainId) : undefined;
    if (!placeholder) {
      return this.set(claim, {
        status: 'failed',
        failureReason: 'The placeholder domain no longer exists',
        nextCheckAt: null,
      });
    }
    const owner = (await this.deps.domains.repository.findByName(claim.name)).find(
      (domain) => domain.teamId !== claim.teamId && domain.status === 'verified',
    );
    const reason = owner ? blockedReasonOf(await ownerFacts(this.deps.knex, owner), now) : null;
    if (reason) {
      return this.set(claim, {
        status: 'blocked',
        blockedReason: reason,
        nextCheckAt: new Date(now.getTime() + BLOCKED_RECHECK_MS),
      });
    }
    try {
      const moved = await transferDomain(this.deps, claim, placeholder, owner);
      this.deps.cache.invalidate();
      return moved ? 'completed' : claim.status;
    } catch (err) {
      // Left verified and retried next rounds; a transfer that keeps failing ends the claim.
      const attempts = claim.checkAttempts + 1;
      if (attempts >= MAX_TRANSFER_ATTEMPTS) {
        const failureReason = `The transfer failed ${attempts} times: ${(err as Error).message}`.slice(0, 500);
        return this.set(claim, { status: 'failed', failureReason, checkAttempts: attempts, nextCheckAt: null });
      }
      return this.set(claim, {
        status: 'verified',
        checkAttempts: attempts,
        nextCheckAt: new Date(now.getTime() + nextCheckDelayMs(attempts)),
      });
    }
  }

  /**
   * Writes only if the claim still has the status this round read: a claim superseded or
   * canceled meanwhile keeps that status. Returns the status the claim has afterwards.
   */
  private async set(claim: DomainClaim, changes: Partial<DomainClaim>): Promise<DomainClaim['status']> {
    const written = await this.repository.updateFrom(claim.id, claim.status, {
      ...changes,
      updatedAt: this.deps.clock.now(),
    });
    if (written) return changes.status ?? claim.status;
    return (await this.repository.findById(claim.id))?.status ?? claim.status;
  }
}
