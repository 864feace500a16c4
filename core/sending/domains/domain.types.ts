import type { Region } from '../../platform/teams/team.types.js';

export const DOMAIN_STATUSES = [
  'not_started',
  'pending',
  'verified',
  'partially_verified',
  'failed',
  'temporary_failure',
] as const;
export type DomainStatus = (typeof DOMAIN_STATUSES)[number];
export type RecordStatus = 'not_started' | 'pending' | 'verified' | 'failed' | 'temporary_failure';

/** Receiving is offered only in these regions (spec: What the service does). */
export const RECEIVING_REGIONS: readonly Region[] = ['us-east-1', 'eu-west-1'];

export type Domain = {
  id: string;
  teamId: string;
  name: string;
  zone: string;
  region: Region;
  status: DomainStatus;
  openTracking: boolean;
  clickTracking: boolean;
  trackingSubdomain: string;
  customReturnPath: string;
  receivingHost: string;
  tls: 'opportunistic' | 'enforced';
  sendingEnabled: boolean;
  receivingEnabled: boolean;
  recordStatuses: Record<string, RecordStatus>;
  createdAt: Date;
  updatedAt: Date;
  verifiedAt: Date | null;
  verificationStartedAt: Date | null;
  lastCheckedAt: Date | null;
  nextCheckAt: Date | null;
  checkAttempts: number;
  /** The appliance publishes the records itself by DNS UPDATE (auto-configure). */
  managed: boolean;
};

export type DkimAlgorithm = 'rsa' | 'ed25519';
export type DkimKeyState = 'pending' | 'active' | 'retired';

export type DkimKey = {
  id: string;
  domainId: string;
  selector: string;
  algorithm: DkimAlgorithm;
  publicKey: string;
  privateKeySealed: string;
  state: DkimKeyState;
  createdAt: Date;
  activatedAt: Date | null;
  retiredAt: Date | null;
};

/** One DNS record the operator publishes; `id` keys its status across checks. */
export type DnsRecord = {
  id: string;
  record: 'DKIM' | 'SPF' | 'Tracking' | 'Receiving';
  /** Fully qualified name, for look-ups. */
  fqdn: string;
  /** Name relative to the zone, as shown to the operator. */
  name: string;
  type: 'TXT' | 'MX' | 'CNAME';
  value: string;
  priority?: number;
  /** Whether the domain's status depends on it (tracking only with tracking on, receiving only with receiving on). */
  required: boolean;
  /** For DKIM records: the key they publish. */
  dkimKeyId?: string;
};

/** A domain as the API shows it: the row and each expected DNS record with its last check. */
export type DomainView = { domain: Domain; records: Array<DnsRecord & { status: RecordStatus }> };

/**
 * What the domain service asks of auto-configure for a managed domain (its records published
 * by DNS UPDATE): implemented in auto-configure/, handed in at wiring, so this folder does not
 * depend on it.
 */
export type ManagedZone = {
  /** A rotated key's record, published before the key is stored. */
  publishKey(domain: Domain, key: DkimKey): Promise<void>;
  /** After the rotated key is stored: verify it, and drop the records of retired keys. */
  rotated(teamId: string, domainId: string): Promise<void>;
  /** Before the domain is deleted: its records leave the zone. */
  removeRecords(view: DomainView): Promise<void>;
};
