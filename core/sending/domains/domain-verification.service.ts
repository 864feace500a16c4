import type { Knex } from 'knex';
import type { Clock } from '../../../lib/clock.js';
import type { DnsLookup } from '../../../lib/dns/dns-resolver.js';
import type { EventLog } from '../../events/log/event-log.js';
import type { AuditRecorder } from '../../platform/audit/audit-log.service.js';
import { APPLIANCE_ACTOR } from '../../platform/audit/audit.types.js';
import { TeamRepository } from '../../platform/teams/team.repository.js';
import { expectedRecords, type RecordTargets } from './domain-records.js';
import { checkRecords, domainStatusOf } from './domain-verifier.js';
import { DomainRepository } from './domain.repository.js';
import { eventData, type DomainService, type DomainView } from './domain.service.js';
import type { DkimKey, Domain } from './domain.types.js';

const MINUTE = 60_000;
/** A verification round that finds nothing for this long ends as `failed`. */
export const VERIFICATION_WINDOW_MS = 72 * 60 * MINUTE;
/** Verified domains are re-checked daily, so a removed record is noticed. */
const RECHECK_VERIFIED_MS = 24 * 60 * MINUTE;

/** Back-off while waiting for records: 1, 2, 4 ... minutes, at most an hour between checks. */
export function nextCheckDelayMs(attempts: number): number {
  return Math.min(2 ** Math.min(attempts, 10) * MINUTE, 60 * MINUTE);
}

/**
 * Moves domains through not_started -> pending -> verified / partially_verified / failed /
 * temporary_failure with real DNS look-ups, activates rotated DKIM keys once their record is
 * visible, lifts the team out of tier 0 on its first verified domain, and records
 * domain.updated whenever a status changes.
 */
export class DomainVerificationService {
  constructor(
    private readonly deps: {
      knex: Knex;
      clock: Clock;
      lookup: DnsLookup;
      targets: RecordTargets;
      events: EventLog;
      domains: DomainService;
      audit: AuditRecorder;
    },
  ) {}

  /** POST /domains/{id}/verify: starts a verification round and checks at once. */
  async verify(teamId: string, id: string): Promise<DomainView> {
    const { domain } = await this.deps.domains.get(teamId, id);
    await this.deps.domains.assertNotAwaitingClaim(domain);
    const now = this.deps.clock.now();
    const restarted: Domain = {
      ...domain,
      status: domain.status === 'verified' ? 'verified' : 'pending',
      verificationStartedAt: now,
      checkAttempts: 0,
    };
    return this.check(restarted, domain.status);
  }

  /**
   * Development only (`mailroom dev trust-domain`): the domain counts as verified without DNS,
   * every record as found, and is not checked again. The caller refuses it in production.
   */
  async trustWithoutDns(teamId: string, id: string): Promise<DomainView> {
    const { domain } = await this.deps.domains.get(teamId, id);
    return this.check({ ...domain, verificationStartedAt: this.deps.clock.now(), checkAttempts: 0 }, domain.status, {
      trusted: true,
    });
  }

  /** The scheduler's round: every domain whose next check is due. */
  async runDueChecks(limit = 100): Promise<{ checked: number; changed: number }> {
    const due = await this.deps.domains.repository.dueForCheck(this.deps.clock.now(), limit);
    let changed = 0;
    for (const domain of due) {
      const view = await this.check(domain);
      if (view.domain.status !== domain.status) changed++;
    }
    return { checked: due.length, changed };
  }

  /** `previousStatus`: what the domain showed before this round (events and updated_at compare to it). */
  private async check(
    domain: Domain,
    previousStatus = domain.status,
    options: { trusted?: boolean } = {},
  ): Promise<DomainView> {
    const now = this.deps.clock.now();
    let keys = await this.deps.domains.repository.keysOf(domain.id);
    const records = expectedRecords(domain, keys, this.deps.targets);
    const recordStatuses = options.trusted
      ? Object.fromEntries(records.map((record) => [record.id, 'verified' as const]))
      : await checkRecords(this.deps.lookup, records);
    const started = domain.verificationStartedAt ?? domain.createdAt;
    const windowClosed = now.getTime() - started.getTime() > VERIFICATION_WINDOW_MS;
    const status = domainStatusOf(records, recordStatuses, windowClosed);
    const attempts = domain.checkAttempts + 1;
    const next: Domain = {
      ...domain,
      status,
      recordStatuses,
      lastCheckedAt: now,
      checkAttempts: attempts,
      verifiedAt: status === 'verified' ? (domain.verifiedAt ?? now) : domain.verifiedAt,
      // A failed round stops until someone asks again; everything else keeps being watched.
      nextCheckAt:
        status === 'failed' || options.trusted
          ? null
          : new Date(now.getTime() + (status === 'verified' ? RECHECK_VERIFIED_MS : nextCheckDelayMs(attempts))),
      updatedAt: status !== previousStatus ? now : domain.updatedAt,
    };
    await this.deps.knex.transaction(async (trx) => {
      const repository = new DomainRepository(trx);
      keys = await this.activateRotatedKeys(repository, keys, recordStatuses, now);
      await repository.update(domain.id, next);
      if (status !== previousStatus)
        await this.deps.events.record(
          domain.teamId,
          'domain.updated',
          eventData(this.deps.domains.view(next, keys)),
          trx,
        );
      if (status === 'verified') await this.liftTeamFromTierZero(trx, domain.teamId, now);
      await this.auditVerification(trx, next, previousStatus);
    });
    return this.deps.domains.view(next, keys);
  }

  /**
   * The audit log records a domain becoming verified, and losing it, as the appliance's finding
   * (whoever asked for the check, DNS decided); the status changes in between are webhook events.
   */
  private async auditVerification(trx: Knex, domain: Domain, previousStatus: Domain['status']): Promise<void> {
    const becameVerified = domain.status === 'verified' && previousStatus !== 'verified';
    const lostVerification = previousStatus === 'verified' && domain.status !== 'verified';
    if (!becameVerified && !lostVerification) return;
    await this.deps.audit.record(
      {
        teamId: domain.teamId,
        actor: APPLIANCE_ACTOR,
        action: becameVerified ? 'domain.verified' : 'domain.verification_lost',
        resource: { type: 'domain', id: domain.id },
        metadata: { name: domain.name, status: domain.status, previous_status: previousStatus },
      },
      undefined,
      trx,
    );
  }

  /** A pending key whose record is visible starts signing; the key it replaces is retired. */
  private async activateRotatedKeys(
    repository: DomainRepository,
    keys: DkimKey[],
    statuses: Record<string, string>,
    now: Date,
  ): Promise<DkimKey[]> {
    let result = keys;
    for (const key of keys.filter((k) => k.state === 'pending' && statuses[`dkim:${k.id}`] === 'verified')) {
      await repository.setKeyState(key.id, 'active', now);
      for (const old of result.filter(
        (k) => k.state === 'active' && k.algorithm === key.algorithm && k.id !== key.id,
      )) {
        await repository.setKeyState(old.id, 'retired', now);
      }
      result = result.map((k) =>
        k.id === key.id
          ? { ...k, state: 'active', activatedAt: now }
          : k.state === 'active' && k.algorithm === key.algorithm
            ? { ...k, state: 'retired', retiredAt: now }
            : k,
      );
    }
    return result;
  }

  private async liftTeamFromTierZero(trx: Knex, teamId: string, now: Date): Promise<void> {
    const teams = new TeamRepository(trx);
    const team = await teams.findById(teamId);
    if (team && team.sendingTier === 0) await teams.update(teamId, { sendingTier: 1 }, now);
  }
}
