import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type { Clock } from '../../../../lib/clock.js';
import { normalizeDomainName } from '../../../../lib/dns/hostname.js';
import { NotFoundError, ResourceLockedError, UnprocessableValidationError } from '../../../../lib/errors.js';
import { newId } from '../../../../lib/ids.js';
import { findHiddenCharacter } from '../../../../lib/text/hidden-characters.js';
import type { Team } from '../../../platform/teams/team.types.js';
import type { CreateDomainInput } from '../domain.schemas.js';
import type { DomainClaimHooks, DomainService } from '../domain.service.js';
import type { Domain } from '../domain.types.js';
import { DomainClaimRepository } from './domain-claim.repository.js';
import { CLAIM_TTL_MS } from './domain-claim.rules.js';
import { isRunning, type DomainClaim } from './domain-claim.types.js';

export type DomainClaimServiceDeps = { knex: Knex; clock: Clock; domains: DomainService };

/**
 * Claims on a name another team has verified: start one (with a placeholder domain holding
 * fresh DKIM keys), read the latest, ask for its TXT check. The checks themselves and the
 * transfer run in the scheduler (DomainClaimChecks).
 */
export class DomainClaimService {
  readonly repository: DomainClaimRepository;

  constructor(private readonly deps: DomainClaimServiceDeps) {
    this.repository = new DomainClaimRepository(deps.knex);
  }

  /** POST /domains/claim. `created` false: an identical running claim was answered instead. */
  async create(team: Team, input: CreateDomainInput): Promise<{ claim: DomainClaim; created: boolean }> {
    // An unusable name goes straight to the placeholder path, whose validation refuses it.
    const name = findHiddenCharacter(input.name) ? null : normalizeDomainName(input.name);
    const existing = name ? await this.deps.domains.repository.findByName(name) : [];
    const ours = existing.find((domain) => domain.teamId === team.id);
    if (ours) return this.againThrough(ours, input);
    if (name && !existing.some((domain) => domain.status === 'verified')) {
      throw new UnprocessableValidationError(
        `The domain ${name} is not verified by another team: add it with POST /domains`,
        { errors: [{ path: 'name', message: 'not verified by another team; nothing to claim' }] },
      );
    }
    let claim: DomainClaim | undefined;
    await this.deps.domains.create(team, input, {
      claim: async (trx, view) => {
        claim = await this.start(trx, team.id, view.domain);
      },
    });
    return { claim: claim!, created: true };
  }

  /** GET /domains/{domain_id}/claim: the latest claim made through that placeholder. */
  async get(teamId: string, domainId: string): Promise<DomainClaim> {
    const { domain } = await this.deps.domains.get(teamId, domainId);
    const claim = await this.repository.latestForDomain(domain.id);
    if (!claim) throw new NotFoundError('Domain claim not found');
    return claim;
  }

  /**
   * POST /domains/{domain_id}/claim/verify: the TXT record is looked up by the scheduler's next
   * round (asynchronous, as the SDK documents); the claim keeps its status until then.
   */
  async verify(teamId: string, domainId: string): Promise<DomainClaim> {
    const claim = await this.get(teamId, domainId);
    if (claim.status === 'completed') return claim;
    if (!isRunning(claim)) {
      throw new UnprocessableValidationError(
        `The claim on ${claim.name} is ${claim.status}; start a new one with POST /domains/claim`,
      );
    }
    const now = this.deps.clock.now();
    const changes = { verifyRequestedAt: now, nextCheckAt: now, checkAttempts: 0, updatedAt: now };
    await this.repository.update(claim.id, changes);
    return { ...claim, ...changes };
  }

  /** What the domain service asks (the 409's `claimable`, verify and delete of a placeholder). */
  readonly hooks: DomainClaimHooks = {
    awaitingClaim: async (domainId) => {
      const latest = await this.repository.latestForDomain(domainId);
      return latest !== undefined && isRunning(latest);
    },
    // Asked only once the name is known to be verified by another team. Not claimable when this
    // team already holds the name (its own domain, or a placeholder whose claim is running).
    claimable: async (teamId, name) => {
      const held = (await this.deps.domains.repository.findByName(name)).some((domain) => domain.teamId === teamId);
      const running = (await this.repository.runningForName(name)).some((claim) => claim.teamId === teamId);
      return !held && !running;
    },
    onRemove: async (trx, domain) => {
      const repository = new DomainClaimRepository(trx);
      const latest = await repository.latestForDomain(domain.id);
      if (latest && isRunning(latest)) {
        const now = this.deps.clock.now();
        await repository.update(latest.id, { status: 'canceled', nextCheckAt: null, updatedAt: now });
      }
    },
  };

  /**
   * The team already has a domain with this name: a placeholder gets a new claim once its last
   * one ended (or the same running one back when the request is identical); a domain that is
   * not a placeholder (or whose claim completed) is the team's own, as POST /domains says.
   */
  private async againThrough(
    ours: Domain,
    input: CreateDomainInput,
  ): Promise<{ claim: DomainClaim; created: boolean }> {
    const latest = await this.repository.latestForDomain(ours.id);
    if (!latest || latest.status === 'completed') {
      throw new UnprocessableValidationError(`The domain ${ours.name} has already been added to this team`, {
        errors: [{ path: 'name', message: 'already added' }],
      });
    }
    if (isRunning(latest)) {
      if (sameRequest(ours, input)) return { claim: latest, created: false };
      throw new ResourceLockedError(`A claim by this team on ${ours.name} is already running with other settings`, {
        claimable: false,
      });
    }
    const others = await this.deps.domains.repository.findByName(ours.name);
    if (!others.some((domain) => domain.teamId !== ours.teamId && domain.status === 'verified')) {
      throw new UnprocessableValidationError(`The domain ${ours.name} is no longer verified by another team`, {
        errors: [{ path: 'name', message: 'not verified by another team; verify your own domain instead' }],
      });
    }
    let claim: DomainClaim | undefined;
    await this.deps.knex.transaction(async (trx) => {
      claim = await this.start(trx, ours.teamId, ours);
    });
    return { claim: claim!, created: true };
  }

  /** A new pending claim through `placeholder`; any other team's running claim is superseded. */
  private async start(trx: Knex, teamId: string, placeholder: Domain): Promise<DomainClaim> {
    const repository = new DomainClaimRepository(trx);
    const now = this.deps.clock.now();
    for (const other of await repository.runningForName(placeholder.name)) {
      if (other.teamId !== teamId)
        await repository.update(other.id, { status: 'superseded', nextCheckAt: null, updatedAt: now });
    }
    const claim: DomainClaim = {
      id: newId(),
      teamId,
      domainId: placeholder.id,
      name: placeholder.name,
      region: placeholder.region,
      status: 'pending',
      blockedReason: null,
      failureReason: null,
      token: randomBytes(16).toString('hex'),
      createdAt: now,
      updatedAt: now,
      expiresAt: new Date(now.getTime() + CLAIM_TTL_MS),
      verifyRequestedAt: null,
      verifiedAt: null,
      completedAt: null,
      nextCheckAt: null,
      checkAttempts: 0,
    };
    await repository.insert(claim);
    return claim;
  }
}

/** "Identical" (the reference's 200): the request asks for what the placeholder already is. */
function sameRequest(placeholder: Domain, input: CreateDomainInput): boolean {
  return (
    placeholder.region === input.region &&
    placeholder.openTracking === input.open_tracking &&
    placeholder.clickTracking === input.click_tracking &&
    placeholder.trackingSubdomain === input.tracking_subdomain &&
    (input.custom_return_path === undefined || placeholder.customReturnPath === input.custom_return_path)
  );
}
