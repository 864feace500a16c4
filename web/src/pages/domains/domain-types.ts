/**
 * The API's domain shapes (api/routes/domain-shapes.ts, core/sending/domains/domain.shape.ts)
 * and the constants of its schemas the forms need (core/sending/domains/domain.schemas.ts).
 */
export type Capability = 'enabled' | 'disabled';

export type DomainItem = {
  object: 'domain';
  id: string;
  name: string;
  status: string;
  created_at: string;
  region: Region;
  capabilities: { sending: Capability; receiving: Capability };
  open_tracking: boolean;
  click_tracking: boolean;
  tracking_subdomain: string;
};

export type DnsRecord = {
  /** The group the record belongs to: DKIM, SPF, Tracking, Receiving. */
  record: string;
  name: string;
  type: string;
  ttl: string;
  status: string;
  value: string;
  priority?: number;
  last_checked_at: string | null;
};

export type Domain = DomainItem & {
  custom_return_path: string;
  receiving_host: string;
  tls: 'opportunistic' | 'enforced';
  managed: boolean;
  records: DnsRecord[];
};

export type HealthCheck = { id: string; label: string; status: 'pass' | 'warn' | 'fail'; detail: string; fix?: string };
export type DomainHealth = {
  object: 'domain_health';
  domain_id: string;
  name: string;
  status: 'pass' | 'warn' | 'fail';
  checked_at: string;
  checks: HealthCheck[];
};

/**
 * The sending regions the API accepts (the region enum of POST /domains). The API does not list
 * them, nor which have egress addresses configured, so they mirror core's REGIONS here.
 */
export const REGIONS = ['us-east-1', 'eu-west-1', 'sa-east-1', 'ap-northeast-1'] as const;
export type Region = (typeof REGIONS)[number];

/** Receiving (inbound MX) is offered only in these regions (core RECEIVING_REGIONS). */
export const RECEIVING_REGIONS: readonly Region[] = ['us-east-1', 'eu-west-1'];

export const receivingUnavailable = (region: Region): string | null =>
  RECEIVING_REGIONS.includes(region)
    ? null
    : `Receiving is offered only in ${RECEIVING_REGIONS.join(' and ')}; this domain sends from ${region}.`;

export const domainKey = (id: string) => ['/domains', id] as const;
export const healthKey = (id: string) => ['/domains', id, 'health'] as const;
