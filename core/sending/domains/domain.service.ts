import type { Knex } from 'knex';
import type { LookupCache } from '../../../lib/cache/lookup-cache.js';
import type { Clock } from '../../../lib/clock.js';
import type { SecretBox } from '../../../lib/crypto/secret-box.js';
import type { DnsLookup } from '../../../lib/dns/dns-resolver.js';
import { normalizeDomainName } from '../../../lib/dns/hostname.js';
import {
  InvalidParameterError,
  NotFoundError,
  ReceivingMxInUseError,
  ResourceLockedError,
  UnprocessableValidationError,
  ValidationError,
} from '../../../lib/errors.js';
import { isUuid, newId } from '../../../lib/ids.js';
import type { EventLog } from '../../events/log/event-log.js';
import type { PageQuery } from '../../shared/pagination/list-query.js';
import type { Team } from '../../platform/teams/team.types.js';
import { generateDkimKey } from './dkim-keys.js';
import { foreignMx, foreignRecordAt, findZone } from './dns-probe.js';
import { expectedRecords, spfValue, type RecordTargets } from './domain-records.js';
import { DomainRepository } from './domain.repository.js';
import type { ReservedDomainNames } from './reserved-names.js';
import { findHiddenCharacter } from '../../../lib/text/hidden-characters.js';
import type { CreateDomainInput, UpdateDomainInput } from './domain.schemas.js';
import {
  RECEIVING_REGIONS,
  type DkimAlgorithm,
  type DkimKey,
  type Domain,
  type DomainView,
  type ManagedZone,
} from './domain.types.js';
import { domainStatusOf } from './domain-verifier.js';
import { publicDomain } from './domain.shape.js';

export type { DomainView } from './domain.types.js';

export type DomainServiceDeps = {
  knex: Knex;
  clock: Clock;
  lookup: DnsLookup;
  targets: RecordTargets;
  /** Public suffixes and the appliance's own host names: refused at create. */
  reservedNames: ReservedDomainNames;
  secrets: SecretBox;
  events: EventLog;
  /** Verified domains by name, briefly (every send looks its from domain up). */
  cache: LookupCache;
};

/**
 * What the claims feature (core/sending/domains/claims, which sits on top of this service)
 * answers for domains; attached once at wiring, so this file never imports it.
 */
export type DomainClaimHooks = {
  /** Whether this domain is a placeholder whose claim is still running. */
  awaitingClaim(domainId: string): Promise<boolean>;
  /** Whether `teamId` may start a claim on `name` now (the `claimable` of 409 resource_locked). */
  claimable(teamId: string, name: string): Promise<boolean>;
  /** The domain is being deleted: a running claim through it is canceled in the same transaction. */
  onRemove(trx: Knex, domain: Domain): Promise<void>;
};

/** A claim creates its placeholder through create(): the name may then be verified elsewhere. */
export type CreateDomainOptions = { claim?: (trx: Knex, view: DomainView) => Promise<void> };

/** Labels tried, in order, when the caller leaves custom_return_path out. */
const RETURN_PATH_CANDIDATES = ['send', ...Array.from({ length: 9 }, (_, i) => `send${i + 1}`), 'mailroom-bounces'];

/** Domains of a team: creation with every rule of the spec, reads, updates and deletion. */
export class DomainService {
  readonly repository: DomainRepository;
  private claims?: DomainClaimHooks;
  private managedZone?: ManagedZone;

  constructor(private readonly deps: DomainServiceDeps) {
    this.repository = new DomainRepository(deps.knex);
  }

  attachClaims(hooks: DomainClaimHooks): void {
    this.claims = hooks;
  }

  /** Auto-configure (built on this service): keeps a managed domain's zone in step. */
  attachManagedZone(zone: ManagedZone): void {
    this.managedZone = zone;
  }

  private zoneOf(domain: Domain): ManagedZone | undefined {
    if (!domain.managed) return undefined;
    if (!this.managedZone) throw new Error('DomainService: a managed domain needs attachManagedZone() at wiring');
    return this.managedZone;
  }

  async create(team: Team, input: CreateDomainInput, options: CreateDomainOptions = {}): Promise<DomainView> {
    const hidden = findHiddenCharacter(input.name);
    if (hidden)
      throw new UnprocessableValidationError(
        `The domain name contains ${hidden}, a bidirectional-control or zero-width character`,
        {
          errors: [
            { path: 'name', message: `must not contain bidirectional-control or zero-width characters (${hidden})` },
          ],
        },
      );
    const name = normalizeDomainName(input.name);
    const reserved = name ? this.deps.reservedNames.reason(name) : this.deps.reservedNames.reasonForLabel(input.name);
    if (reserved)
      throw new UnprocessableValidationError(`The domain ${name ?? input.name.trim()} cannot be added: ${reserved}`, {
        errors: [{ path: 'name', message: reserved }],
      });
    if (!name)
      throw new ValidationError('name must be a domain name such as mail.example.com', {
        errors: [{ path: 'name', message: 'is not a valid domain name' }],
      });
    const sending = input.capabilities?.sending ?? 'enabled';
    const receiving = input.capabilities?.receiving ?? 'disabled';
    this.assertCapabilities(sending === 'enabled', receiving === 'enabled', input.region);
    await this.assertNameAvailable(team, name, Boolean(options.claim));

    const zone = await findZone(this.deps.lookup, name);
    const spf = spfValue(this.deps.targets.regionIps[input.region]);
    const customReturnPath = await this.chooseReturnPath(name, input.custom_return_path, spf);
    const receivingFqdn = input.receiving_host === '@' ? name : `${input.receiving_host}.${name}`;
    if (receiving === 'enabled' && !input.confirm_replace_mx) {
      const elsewhere = await foreignMx(this.deps.lookup, receivingFqdn, this.deps.targets.inboundMxHost);
      if (elsewhere) {
        throw new ReceivingMxInUseError(
          `The MX of ${receivingFqdn} delivers to ${elsewhere}; send confirm_replace_mx: true to replace it`,
          {
            details: { found: { type: 'MX', value: elsewhere } },
          },
        );
      }
    }

    const now = this.deps.clock.now();
    const domain: Domain = {
      id: newId(),
      teamId: team.id,
      name,
      zone,
      region: input.region,
      status: 'not_started',
      openTracking: input.open_tracking,
      clickTracking: input.click_tracking,
      trackingSubdomain: input.tracking_subdomain,
      customReturnPath,
      receivingHost: input.receiving_host,
      tls: input.tls,
      sendingEnabled: sending === 'enabled',
      receivingEnabled: receiving === 'enabled',
      recordStatuses: {},
      createdAt: now,
      updatedAt: now,
      verifiedAt: null,
      verificationStartedAt: null,
      lastCheckedAt: null,
      nextCheckAt: null,
      checkAttempts: 0,
      managed: false,
    };
    const keys = (['rsa', ...(input.dkim_ed25519 ? ['ed25519' as const] : [])] as DkimAlgorithm[]).map((algorithm) =>
      this.newKey(domain.id, algorithm, 'active', now),
    );
    await this.deps.knex.transaction(async (trx) => {
      const repository = new DomainRepository(trx);
      await repository.insert(domain);
      for (const key of keys) await repository.insertKey(key);
      const view = this.view(domain, keys);
      await this.deps.events.record(team.id, 'domain.created', eventData(view), trx);
      await options.claim?.(trx, view);
    });
    return this.view(domain, keys);
  }

  async get(teamId: string, id: string): Promise<DomainView> {
    const domain = isUuid(id) ? await this.repository.findInTeam(teamId, id.toLowerCase()) : undefined;
    if (!domain) throw new NotFoundError('Domain not found');
    return this.view(domain, await this.repository.keysOf(domain.id));
  }

  /**
   * Auto-configure published the domain's records: it is managed from now on (rotation and
   * deletion update its zone), and the team hears of it as of any change (domain.updated).
   */
  async markManaged(teamId: string, domain: Domain): Promise<void> {
    if (domain.managed) return;
    const next: Domain = { ...domain, managed: true, updatedAt: this.deps.clock.now() };
    const keys = await this.repository.keysOf(domain.id);
    await this.deps.knex.transaction(async (trx) => {
      await new DomainRepository(trx).update(domain.id, { managed: true, updatedAt: next.updatedAt });
      await this.deps.events.record(teamId, 'domain.updated', eventData(this.view(next, keys)), trx);
    });
  }

  async list(teamId: string, page: PageQuery) {
    return this.repository.listForTeam(teamId, page);
  }

  async update(teamId: string, id: string, input: UpdateDomainInput): Promise<DomainView> {
    const { domain } = await this.get(teamId, id);
    const changes: Partial<Domain> = {};
    if (input.open_tracking !== undefined) changes.openTracking = input.open_tracking;
    if (input.click_tracking !== undefined) changes.clickTracking = input.click_tracking;
    if (input.tls !== undefined) changes.tls = input.tls;
    if (input.tracking_subdomain !== undefined && input.tracking_subdomain !== domain.trackingSubdomain) {
      changes.trackingSubdomain = input.tracking_subdomain;
      changes.recordStatuses = { ...domain.recordStatuses, tracking: 'not_started' };
    }
    if (input.capabilities?.sending) changes.sendingEnabled = input.capabilities.sending === 'enabled';
    if (input.capabilities?.receiving) changes.receivingEnabled = input.capabilities.receiving === 'enabled';
    const next: Domain = { ...domain, ...changes, updatedAt: this.deps.clock.now() };
    this.assertCapabilities(next.sendingEnabled, next.receivingEnabled, next.region);
    const keys = await this.repository.keysOf(domain.id);
    // What is required may have changed (tracking or receiving switched on): re-derive the status.
    if (domain.status !== 'not_started') {
      const records = expectedRecords(next, keys, this.deps.targets);
      const windowClosed = domain.status === 'failed';
      next.status = domainStatusOf(records, next.recordStatuses, windowClosed);
      changes.status = next.status;
    }
    await this.deps.knex.transaction(async (trx) => {
      await new DomainRepository(trx).update(domain.id, { ...changes, updatedAt: next.updatedAt });
      await this.deps.events.record(teamId, 'domain.updated', eventData(this.view(next, keys)), trx);
    });
    return this.view(next, keys);
  }

  async remove(teamId: string, id: string): Promise<Domain> {
    const view = await this.get(teamId, id);
    // Managed: the records leave the zone first; a refused update keeps the domain to retry.
    await this.zoneOf(view.domain)?.removeRecords(view);
    await this.deps.knex.transaction(async (trx) => {
      await this.claims?.onRemove(trx, view.domain);
      await new DomainRepository(trx).delete(view.domain.id);
      await this.deps.events.record(teamId, 'domain.deleted', eventData(view), trx);
    });
    return view.domain;
  }

  /** A placeholder's records are verified only once its claim completed (else two teams would hold the name). */
  async assertNotAwaitingClaim(domain: Domain): Promise<void> {
    if (await this.claims?.awaitingClaim(domain.id)) {
      throw new ResourceLockedError(
        `The claim on ${domain.name} is still running; its records can be verified once it completes`,
      );
    }
  }

  /**
   * Starts a DKIM rotation: a new key is published beside the current one and signs only once
   * its record verifies (see DomainVerificationService); the old key is retired then.
   */
  async rotateDkim(teamId: string, id: string, algorithm: DkimAlgorithm): Promise<DomainView> {
    const { domain } = await this.get(teamId, id);
    const keys = await this.repository.keysOf(domain.id);
    if (keys.some((key) => key.state === 'pending' && key.algorithm === algorithm)) {
      throw new ResourceLockedError(`A ${algorithm} key rotation is already waiting for its DNS record`);
    }
    const key = this.newKey(domain.id, algorithm, 'pending', this.deps.clock.now());
    // Managed: the record is in the zone before the key exists, so a refused update stores nothing.
    const zone = this.zoneOf(domain);
    await zone?.publishKey(domain, key);
    const view = this.view(domain, [...keys, key]);
    await this.deps.knex.transaction(async (trx) => {
      await new DomainRepository(trx).insertKey(key);
      await this.deps.events.record(teamId, 'domain.updated', eventData(view), trx);
    });
    if (!zone) return view;
    await zone.rotated(teamId, domain.id);
    return this.get(teamId, domain.id);
  }

  /** The keys that sign for a domain now (active ones), private halves unsealed; for the MTA. */
  async signingKeys(
    domainId: string,
  ): Promise<Array<{ selector: string; algorithm: DkimAlgorithm; privateKeyPem: string }>> {
    const keys = await this.repository.keysOf(domainId);
    return keys
      .filter((key) => key.state === 'active')
      .map((key) => ({
        selector: key.selector,
        algorithm: key.algorithm,
        privateKeyPem: this.deps.secrets.open(key.privateKeySealed),
      }));
  }

  /**
   * A domain by id through the look-up cache (api.lookupCacheMs, 1 s): what the MTA reads for
   * every claim (region, tls setting, return path). A change made in this process is seen at
   * once (domains is a watched table), one made by another process within that time.
   */
  async current(id: string): Promise<Domain | undefined> {
    return this.deps.cache.get(`domain:${id}`, async () => {
      const found = await this.repository.findById(id);
      // Cached rows are shared by concurrent callers: frozen.
      return found ? Object.freeze(found) : undefined;
    });
  }

  /** The team's verified domain with this exact name (the domain of a `from` address). */
  async findVerifiedByName(teamId: string, name: string): Promise<Domain | undefined> {
    const lower = name.toLowerCase();
    return this.deps.cache.get(`verified-domain:${teamId}:${lower}`, async () => {
      const found = (await this.repository.findByName(lower)).find(
        (domain) => domain.teamId === teamId && domain.status === 'verified',
      );
      // Cached rows are shared by concurrent requests: frozen.
      return found ? Object.freeze(found) : undefined;
    });
  }

  /** Every team's domain with this name (the inbound MX asks at each RCPT: cached briefly). */
  async findByName(name: string): Promise<readonly Domain[]> {
    const lower = name.toLowerCase();
    const found = await this.deps.cache.get(`domains-named:${lower}`, async () =>
      Object.freeze((await this.repository.findByName(lower)).map((domain) => Object.freeze(domain))),
    );
    return found ?? [];
  }

  async findById(id: string): Promise<Domain | undefined> {
    return isUuid(id) ? this.repository.findById(id.toLowerCase()) : undefined;
  }

  /** The team's verified domain with this id, for pinning a sending key to it. */
  async findVerified(teamId: string, id: string): Promise<Domain | undefined> {
    const domain = isUuid(id) ? await this.repository.findInTeam(teamId, id.toLowerCase()) : undefined;
    return domain?.status === 'verified' ? domain : undefined;
  }

  /** A domain and its records, each with the status of the last check. */
  view(domain: Domain, keys: DkimKey[]): DomainView {
    const records = expectedRecords(domain, keys, this.deps.targets).map((record) => ({
      ...record,
      status: domain.recordStatuses[record.id] ?? 'not_started',
    }));
    return { domain, records };
  }

  newKey(domainId: string, algorithm: DkimAlgorithm, state: DkimKey['state'], now: Date): DkimKey {
    const generated = generateDkimKey(algorithm);
    return {
      id: newId(),
      domainId,
      selector: generated.selector,
      algorithm,
      publicKey: generated.publicKey,
      privateKeySealed: this.deps.secrets.seal(generated.privateKeyPem),
      state,
      createdAt: now,
      activatedAt: state === 'active' ? now : null,
      retiredAt: null,
    };
  }

  private assertCapabilities(sending: boolean, receiving: boolean, region: Domain['region']): void {
    if (!sending && !receiving) {
      throw new ValidationError('At least one capability must be enabled', {
        errors: [{ path: 'capabilities', message: 'enable sending, receiving or both' }],
      });
    }
    if (receiving && !RECEIVING_REGIONS.includes(region)) {
      throw new ValidationError(`Receiving is available only in ${RECEIVING_REGIONS.join(' and ')}`, {
        errors: [{ path: 'capabilities.receiving', message: `not available in ${region}` }],
      });
    }
  }

  /** `claiming`: the name may be verified by another team (a claim's placeholder). */
  private async assertNameAvailable(team: Team, name: string, claiming = false): Promise<void> {
    const existing = await this.repository.findByName(name);
    const ours = existing.find((domain) => domain.teamId === team.id);
    if (ours && (await this.claims?.awaitingClaim(ours.id))) {
      throw new ResourceLockedError(`A claim by this team on ${name} is already running`, { claimable: false });
    }
    if (ours) {
      throw new UnprocessableValidationError(`The domain ${name} has already been added to this team`, {
        errors: [{ path: 'name', message: 'already added' }],
      });
    }
    if (!claiming && existing.some((domain) => domain.teamId !== team.id && domain.status === 'verified')) {
      const claimable = this.claims ? await this.claims.claimable(team.id, name) : undefined;
      throw new ResourceLockedError(
        `The domain ${name} is verified by another team${claimable ? '; claim it with POST /domains/claim' : ''}`,
        { claimable },
      );
    }
    if ((await this.repository.countForTeam(team.id)) >= team.plan.limits.domain_limit) {
      throw new UnprocessableValidationError(
        `The ${team.plan.name} plan allows ${team.plan.limits.domain_limit} domain(s); remove one or change plan`,
      );
    }
  }

  /** The caller's label if free (or already ours), else 422 with a suggestion; or the first free one. */
  private async chooseReturnPath(name: string, requested: string | undefined, spf: string): Promise<string> {
    const ours = { mxHost: this.deps.targets.mtaHostname, spf };
    const freeCandidate = async (exclude?: string) => {
      for (const candidate of RETURN_PATH_CANDIDATES) {
        if (candidate !== exclude && !(await foreignRecordAt(this.deps.lookup, `${candidate}.${name}`, ours)))
          return candidate;
      }
      return `mr-${newId().slice(-8)}`;
    };
    if (!requested) return freeCandidate();
    const found = await foreignRecordAt(this.deps.lookup, `${requested}.${name}`, ours);
    if (!found) return requested;
    throw new InvalidParameterError(`${requested}.${name} already holds another service's ${found.type} record`, {
      details: { reason: 'return_path_in_use', label: requested, found, suggestion: await freeCandidate(requested) },
    });
  }
}

/** Payload of domain.* events: the domain as the API shows it (records with their statuses). */
export function eventData(view: DomainView): Record<string, unknown> {
  return publicDomain(view);
}
