import type { Knex } from 'knex';
import type { Dialect } from '../db/connection.js';
import type { Config } from '../lib/config/config.schema.js';
import type { FileBlobStore } from '../lib/blob-store.js';
import type { SegmentSpool } from '../lib/spool/segment-spool.js';
import type { Clock } from '../lib/clock.js';
import type { KeyValueStore } from '../lib/kv/kv.js';
import { ApiKeyService } from './api-keys/api-key.service.js';
import { BrandAssetService } from './brand-assets/brand-asset.service.js';
import { EventService } from './events/event.service.js';
import { WebhookOutbox } from './webhooks/webhook-outbox.js';
import { createWebhookServices } from './webhooks/webhook-services.js';
import { SuppressionService } from './suppressions/suppression.service.js';
import { TemplateService } from './templates/template.service.js';
import { EmailService } from './emails/email.service.js';
import { EmailEvents } from './emails/email-events.js';
import { TrackingService } from './tracking/tracking.service.js';
import { TrackingTokens } from './tracking/tracking-tokens.js';
import { DeliveryService } from './deliveries/delivery.service.js';
import { DeliveryRetention } from './deliveries/delivery-retention.js';
import { DownloadLinks } from './emails/download-links.js';
import { DomainVerificationService } from './domains/domain-verification.service.js';
import { DomainService } from './domains/domain.service.js';
import type { RecordTargets } from './domains/domain-records.js';
import { readFileSync } from 'node:fs';
import { GroupCommitter } from '../db/group-commit.js';
import { watchWrites } from '../db/write-watcher.js';
import { LookupCache } from '../lib/cache/lookup-cache.js';
import { SecretBox } from '../lib/crypto/secret-box.js';
import { AddressPolicy } from '../lib/net/address-policy.js';
import { safeFetch } from '../lib/net/safe-fetch.js';
import type { DnsLookup } from '../lib/dns/dns-resolver.js';
import { egressPools } from '../lib/config/egress-pools.js';
import { ReadinessService } from './health/readiness.service.js';
import { IdempotencyService } from './idempotency/idempotency.service.js';
import { RateLimiter } from './rate-limit/rate-limiter.js';
import { RequestLogService } from './request-logs/request-log.service.js';
import { TeamService } from './teams/team.service.js';
import { MetricsService } from './metrics/metric.service.js';

export type Infrastructure = {
  knex: Knex;
  dialect: Dialect;
  kv: KeyValueStore;
  blobs: FileBlobStore;
  spool: SegmentSpool;
  clock: Clock;
  config: Config;
  version: string;
  /** The API's public base URL; known only once the server listens when the port is 0. */
  publicUrl: () => string;
  /** The resolver domain verification uses (tests point it at their own DNS server). */
  lookup: DnsLookup;
  /** The master key that seals secrets at rest. */
  masterKey: string;
};

/** Every domain service, built once per process from the infrastructure it runs on. */
export function createServices(infra: Infrastructure) {
  const { knex, clock, config, lookup } = infra;
  // Every recorded event queues its webhook deliveries in the same transaction.
  const webhookOutbox = new WebhookOutbox(config.webhooks.endpointCacheMs);
  const events = new EventService({ knex, clock, fanOut: webhookOutbox });
  const emailEvents = new EmailEvents({ clock, events });
  // One group committer per process: concurrent requests share durable commits.
  const committer = new GroupCommitter(knex);
  const targets: RecordTargets = {
    mtaHostname: config.mta.hostname.toLowerCase(),
    inboundMxHost: config.inbound.mxHost.toLowerCase(),
    trackingHost: config.tracking.host.toLowerCase(),
    regionIps: Object.fromEntries(Object.entries(egressPools(config)).map(([region, pool]) => [region, pool.map((ip) => ip.address)])) as RecordTargets['regionIps'],
  };
  // Keys, teams and verified domains are read by every request: kept briefly, and forgotten at
  // once when this process writes any of those tables (other processes: within the TTL).
  const lookupCache = new LookupCache(config.api.lookupCacheMs);
  watchWrites(knex, ['api_keys', 'teams', 'domains', 'egress_blocks'], () => lookupCache.invalidate());
  const domains = new DomainService({ knex, clock, lookup, targets, secrets: new SecretBox(infra.masterKey), events, cache: lookupCache });
  const teams = new TeamService({ knex, clock, aiConfigured: config.ai.provider !== 'none' });
  const suppressions = new SuppressionService({ knex, clock, events });
  const templates = new TemplateService({ knex, clock });
  const simulatorDomain = config.sandbox.simulatorDomain.toLowerCase();
  const fetchPolicy = new AddressPolicy(config.attachments.fetchAllowAddresses);
  const ca = config.attachments.fetchCaFile ? readFileSync(config.attachments.fetchCaFile, 'utf8') : undefined;
  const fetchAttachment = (url: string) =>
    safeFetch(url, { lookup, policy: fetchPolicy, timeoutMs: config.attachments.fetchTimeoutMs, maxBytes: config.attachments.fetchMaxBytes, ca });
  const tracking = new TrackingService({ knex, clock, emailEvents, tokens: new TrackingTokens(infra.masterKey), scheme: config.tracking.scheme, trackingHost: config.tracking.host, publicUrl: infra.publicUrl });
  return {
    events,
    ...createWebhookServices({ knex, clock, config, lookup, masterKey: infra.masterKey, events, outbox: webhookOutbox }),
    emailEvents,
    tracking,
    deliveries: new DeliveryService({ knex, clock, events, emailEvents, suppressions, maxQueueSeconds: config.mta.maxQueueSeconds, cache: lookupCache }),
    deliveryRetention: new DeliveryRetention({ knex, clock, transcriptRetentionDays: config.mta.transcriptRetentionDays }),
    domains,
    suppressions,
    templates,
    teams,
    emails: new EmailService({ knex, clock, spool: infra.spool, events, domains, teams, templates, suppressions, simulatorDomain, fetchAttachment, committer, links: new DownloadLinks(infra.masterKey, infra.publicUrl), instrumentHtml: (html, id, domain) => tracking.instrument(html, id, domain) }),
    domainVerification: new DomainVerificationService({ knex, clock, lookup, targets, events, domains }),
    apiKeys: new ApiKeyService({ knex, clock, findVerifiedDomain: (teamId, id) => domains.findVerified(teamId, id), cache: lookupCache }),
    requestLogs: new RequestLogService({ knex, clock, committer }),
    idempotency: new IdempotencyService({ knex, clock }),
    rateLimiter: new RateLimiter(infra.kv, config.api.rateLimitPerSecond),
    brandAssets: new BrandAssetService({ knex, clock, blobs: infra.blobs, publicUrl: infra.publicUrl }),
    readiness: new ReadinessService({ knex, kv: infra.kv, blobs: infra.blobs, version: infra.version, env: config.env }),
    metrics: new MetricsService({ knex, clock }),
    simulatorDomain,
    lookupCache,
  };
}

export type Services = ReturnType<typeof createServices>;
