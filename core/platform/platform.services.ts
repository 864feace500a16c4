import { PlatformSettings } from './settings/platform-settings.js';
import type { Knex } from 'knex';
import type { FileBlobStore } from '../../lib/blob-store.js';
import type { LookupCache } from '../../lib/cache/lookup-cache.js';
import type { Clock } from '../../lib/clock.js';
import type { Config } from '../../lib/config/config.schema.js';
import type { KeyValueStore } from '../../lib/kv/kv.js';
import type { UnitsOfWork } from '../../db/unit-of-work.js';
import { AuditLogService } from './audit/audit-log.service.js';
import { ApiKeyService } from './api-keys/api-key.service.js';
import { BrandAssetService } from './brand-assets/brand-asset.service.js';
import { ReadinessService } from './health/readiness.service.js';
import { IdempotencyService } from './idempotency/idempotency.service.js';
import { ProcessLease } from './leases/process-lease.js';
import { RateLimiter } from './rate-limit/rate-limiter.js';
import { RequestLogService } from './request-logs/request-log.service.js';
import { TeamMembersService } from './teams/team-members.service.js';
import { TeamService } from './teams/team.service.js';
import { UsageLedger } from './usage/usage-ledger.js';

export type PlatformInfrastructure = {
  knex: Knex;
  kv: KeyValueStore;
  blobs: FileBlobStore;
  clock: Clock;
  config: Config;
  version: string;
  publicUrl: () => string;
  units: UnitsOfWork;
  /** Keys, teams and verified domains, read by every request. */
  lookupCache: LookupCache;
  /** A key pinned to a domain must name one the team has verified (the sending group answers). */
  findVerifiedDomain: (teamId: string, domainId: string) => Promise<{ id: string } | undefined>;
};

/** The platform group: teams, API keys, request logs, idempotency, rate limits, brand assets, health. */
export function createPlatformServices(infra: PlatformInfrastructure) {
  const { knex, clock, config, lookupCache } = infra;
  const processLease = new ProcessLease(knex);
  return {
    processLease,
    settings: new PlatformSettings({ knex, clock }),
    /** What each team used, per month and category (written in the transaction of what it counts). */
    usage: new UsageLedger(knex, clock),
    teams: new TeamService({ knex, clock, aiConfigured: config.ai.provider !== 'none' }),
    apiKeys: new ApiKeyService({ knex, clock, findVerifiedDomain: infra.findVerifiedDomain, cache: lookupCache }),
    requestLogs: new RequestLogService({ knex, clock, units: infra.units }),
    audit: new AuditLogService({ knex, clock }),
    teamMembers: new TeamMembersService({ knex }),
    idempotency: new IdempotencyService({ knex, clock, lease: processLease }),
    rateLimiter: new RateLimiter(infra.kv, config.api.rateLimitPerSecond),
    brandAssets: new BrandAssetService({ knex, clock, blobs: infra.blobs, publicUrl: infra.publicUrl }),
    readiness: new ReadinessService({
      knex,
      kv: infra.kv,
      blobs: infra.blobs,
      version: infra.version,
      env: config.env,
    }),
  };
}

export type PlatformServices = ReturnType<typeof createPlatformServices>;
