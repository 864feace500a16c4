import type { Knex } from 'knex';
import type { Dialect } from '../db/connection.js';
import type { Config } from '../lib/config/config.schema.js';
import type { FileBlobStore } from '../lib/blob-store.js';
import type { Clock } from '../lib/clock.js';
import type { KeyValueStore } from '../lib/kv/kv.js';
import { ApiKeyService } from './api-keys/api-key.service.js';
import { BrandAssetService } from './brand-assets/brand-asset.service.js';
import { EventService } from './events/event.service.js';
import { ReadinessService } from './health/readiness.service.js';
import { IdempotencyService } from './idempotency/idempotency.service.js';
import { RateLimiter } from './rate-limit/rate-limiter.js';
import { RequestLogService } from './request-logs/request-log.service.js';
import { TeamService } from './teams/team.service.js';

export type Infrastructure = {
  knex: Knex;
  dialect: Dialect;
  kv: KeyValueStore;
  blobs: FileBlobStore;
  clock: Clock;
  config: Config;
  version: string;
  /** The API's public base URL; known only once the server listens when the port is 0. */
  publicUrl: () => string;
};

/** Every domain service, built once per process from the infrastructure it runs on. */
export function createServices(infra: Infrastructure) {
  const { knex, clock, config } = infra;
  return {
    events: new EventService({ knex, clock }),
    teams: new TeamService({ knex, clock, aiConfigured: config.ai.provider !== 'none' }),
    apiKeys: new ApiKeyService({ knex, clock }),
    requestLogs: new RequestLogService({ knex, clock }),
    idempotency: new IdempotencyService({ knex, clock }),
    rateLimiter: new RateLimiter(infra.kv, config.api.rateLimitPerSecond),
    brandAssets: new BrandAssetService({ knex, clock, blobs: infra.blobs, publicUrl: infra.publicUrl }),
    readiness: new ReadinessService({ knex, kv: infra.kv, blobs: infra.blobs, version: infra.version, env: config.env }),
  };
}

export type Services = ReturnType<typeof createServices>;
