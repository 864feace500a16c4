import type { Config } from '../../../../lib/config/config.schema.js';
import { DomainVerificationService } from '../domain-verification.service.js';
import { expectedRecords, type RecordTargets } from '../domain-records.js';
import type { DomainService } from '../domain.service.js';
import type { DkimKey, Domain, DomainView, ManagedZone } from '../domain.types.js';
import { applyUpdate, requireZone, zoneFor, type UpdateZoneConfig } from './update-zones.js';
import { dmarcRecordValue } from '../dmarc-record.js';
import { addOperation, dmarcUpdate, publishOperations, removeOperations, tlsRptUpdate } from './zone-changes.js';

export type DomainAutoConfigureDeps = {
  zones: readonly UpdateZoneConfig[];
  timeoutMs: number;
  targets: RecordTargets;
  domains: DomainService;
  verification: DomainVerificationService;
};

/**
 * Auto-configure (issue 23): publishes a domain's records in the operator's own zone by DNS
 * UPDATE, then starts verification as POST /domains/{id}/verify does, and marks the domain
 * managed, so that DKIM rotation and deletion keep the zone in step (the ManagedZone hooks).
 */
export class DomainAutoConfigureService implements ManagedZone {
  constructor(private readonly deps: DomainAutoConfigureDeps) {}

  async autoConfigure(teamId: string, id: string): Promise<DomainView> {
    const { domain } = await this.deps.domains.get(teamId, id);
    const zone = requireZone(this.deps.zones, domain.name);
    const keys = await this.deps.domains.repository.keysOf(domain.id);
    const records = expectedRecords(domain, keys, this.deps.targets);
    await applyUpdate(zone, { updates: publishOperations(domain, records, keys, zone.ttl) }, this.deps.timeoutMs);
    // A second UPDATE, so that a DMARC policy already there (the prerequisite fails with
    // YXRRSET) leaves the rest published.
    const dmarc = dmarcRecordValue(domain, this.deps.targets);
    await applyUpdate(zone, dmarcUpdate(domain, zone.zone, zone.ttl, dmarc), this.deps.timeoutMs, ['YXRRSET']);
    // The same for TLS reporting: a TLSRPT record already there is the owner's, and stays.
    if (this.deps.targets.tlsRptRua)
      await applyUpdate(zone, tlsRptUpdate(domain, zone.ttl, this.deps.targets.tlsRptRua), this.deps.timeoutMs, [
        'YXRRSET',
      ]);
    // Before verifying: the verification round writes the row it read, managed included.
    await this.deps.domains.markManaged(teamId, domain);
    return this.deps.verification.verify(teamId, domain.id);
  }

  /**
   * Rotation, before the key is stored: its record is added beside the current key's. A zone no
   * longer configured: the rotation goes on as for any domain (records published by hand).
   */
  async publishKey(domain: Domain, key: DkimKey): Promise<void> {
    const zone = zoneFor(this.deps.zones, domain.name);
    if (!zone) return;
    const [record] = expectedRecords(domain, [key], this.deps.targets);
    await applyUpdate(zone, { updates: [addOperation(record!, zone.ttl)] }, this.deps.timeoutMs);
  }

  /**
   * Rotation, after the key is stored: a verification round activates the new key as soon as
   * its record is seen (retiring the old one), and the retired key's record leaves the zone. Not
   * seen yet: the scheduler's rounds activate it, and the next auto-configure removes the old one.
   */
  async rotated(teamId: string, domainId: string): Promise<void> {
    const zone = zoneFor(this.deps.zones, (await this.deps.domains.get(teamId, domainId)).domain.name);
    if (!zone) return;
    await this.deps.verification.verify(teamId, domainId);
    const { domain } = await this.deps.domains.get(teamId, domainId);
    const keys = await this.deps.domains.repository.keysOf(domain.id);
    const records = expectedRecords(domain, keys, this.deps.targets);
    await applyUpdate(zone, { updates: publishOperations(domain, records, keys, zone.ttl) }, this.deps.timeoutMs);
  }

  /**
   * Deletion: the records leave the zone first, so a refusal keeps the domain (and the caller
   * can retry). A zone no longer configured cannot be updated: the domain is deleted anyway.
   */
  async removeRecords(view: DomainView): Promise<void> {
    const zone = zoneFor(this.deps.zones, view.domain.name);
    if (!zone) return;
    const keys = await this.deps.domains.repository.keysOf(view.domain.id);
    await applyUpdate(zone, { updates: removeOperations(view.domain, view.records, keys) }, this.deps.timeoutMs);
  }
}

/** Built from the sending group's parts; its own verification service is the same stateless rounds. */
export function createDomainAutoConfigure(
  parts: ConstructorParameters<typeof DomainVerificationService>[0] & { dns: Config['dns'] },
): DomainAutoConfigureService {
  const { dns, ...verificationDeps } = parts;
  return new DomainAutoConfigureService({
    zones: dns.updateZones,
    timeoutMs: dns.updateTimeoutMs,
    targets: parts.targets,
    domains: parts.domains,
    verification: new DomainVerificationService(verificationDeps),
  });
}
