import type { Domain, DomainView } from './domain.types.js';

/**
 * The domain's public shape: what the API answers and what domain.* webhook events carry, so a
 * receiver reads the same object it would fetch. Pure data shaping, shared by api and core.
 */
const capability = (on: boolean) => (on ? 'enabled' : 'disabled');

export function publicDomainItem(domain: Domain) {
  return {
    object: 'domain' as const,
    id: domain.id,
    name: domain.name,
    status: domain.status,
    created_at: domain.createdAt.toISOString(),
    region: domain.region,
    capabilities: { sending: capability(domain.sendingEnabled), receiving: capability(domain.receivingEnabled) },
    open_tracking: domain.openTracking,
    click_tracking: domain.clickTracking,
    tracking_subdomain: domain.trackingSubdomain,
  };
}

/**
 * When the record was last looked up: every verification round checks every record and stores
 * its status, so it is the domain's last round for a record with a stored status; null for one
 * not checked yet (a new domain, a DKIM key rotated in since the last round).
 */
function lastCheckedAt(domain: Domain, recordId: string): string | null {
  return domain.lastCheckedAt && domain.recordStatuses[recordId] !== undefined
    ? domain.lastCheckedAt.toISOString()
    : null;
}

export function publicDomain({ domain, records }: DomainView) {
  return {
    ...publicDomainItem(domain),
    custom_return_path: domain.customReturnPath,
    receiving_host: domain.receivingHost,
    tls: domain.tls,
    managed: domain.managed,
    records: records.map((record) => ({
      record: record.record,
      name: record.name,
      type: record.type,
      ttl: 'Auto',
      status: record.status,
      value: record.value,
      ...(record.priority !== undefined ? { priority: record.priority } : {}),
      last_checked_at: lastCheckedAt(domain, record.id),
    })),
  };
}
