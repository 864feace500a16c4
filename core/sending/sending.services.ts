import { readFileSync } from 'node:fs';
import type { Knex } from 'knex';
import type { LookupCache } from '../../lib/cache/lookup-cache.js';
import type { Clock } from '../../lib/clock.js';
import type { Config } from '../../lib/config/config.schema.js';
import { egressPools } from '../../lib/config/egress-pools.js';
import { SecretBox } from '../../lib/crypto/secret-box.js';
import type { DnsLookup } from '../../lib/dns/dns-resolver.js';
import { AddressPolicy } from '../../lib/net/address-policy.js';
import { safeFetch } from '../../lib/net/safe-fetch.js';
import type { SegmentSpool } from '../../lib/spool/segment-spool.js';
import type { UnitsOfWork } from '../../db/unit-of-work.js';
import type { EventService } from '../events/log/event.service.js';
import type { TeamService } from '../platform/teams/team.service.js';
import { DeliveryRetention } from './deliveries/delivery-retention.js';
import { DeliveryService } from './deliveries/delivery.service.js';
import type { RecordTargets } from './domains/domain-records.js';
import { DomainVerificationService } from './domains/domain-verification.service.js';
import { DomainService } from './domains/domain.service.js';
import { DownloadLinks } from './emails/download-links.js';
import { EmailAcceptance } from './emails/email-acceptance.js';
import { EmailEvents } from './emails/email-events.js';
import { EmailService } from './emails/email.service.js';
import { SuppressionService } from './suppressions/suppression.service.js';
import { TemplateService } from './templates/template.service.js';
import { TrackingTokens } from './tracking/tracking-tokens.js';
import { TrackingService } from './tracking/tracking.service.js';

export type SendingInfrastructure = {
  knex: Knex;
  clock: Clock;
  config: Config;
  lookup: DnsLookup;
  masterKey: string;
  spool: SegmentSpool;
  publicUrl: () => string;
  units: UnitsOfWork;
  lookupCache: LookupCache;
  events: EventService;
  teams: TeamService;
};

/** The DNS names and addresses a domain's records point at, from the configuration. */
function recordTargets(config: Config): RecordTargets {
  return {
    mtaHostname: config.mta.hostname.toLowerCase(),
    inboundMxHost: config.inbound.mxHost.toLowerCase(),
    trackingHost: config.tracking.host.toLowerCase(),
    regionIps: Object.fromEntries(Object.entries(egressPools(config)).map(([region, pool]) => [region, pool.map((ip) => ip.address)])) as RecordTargets['regionIps'],
  };
}

/**
 * The sending group: domains, templates, suppressions, emails (acceptance, reads, attachments),
 * deliveries and their outcomes, tracking.
 */
export function createSendingServices(infra: SendingInfrastructure) {
  const { knex, clock, config, lookup, events, teams } = infra;
  const emailEvents = new EmailEvents({ clock, events });
  const targets = recordTargets(config);
  const domains = new DomainService({ knex, clock, lookup, targets, secrets: new SecretBox(infra.masterKey), events, cache: infra.lookupCache });
  const suppressions = new SuppressionService({ knex, clock, events });
  const templates = new TemplateService({ knex, clock });
  const simulatorDomain = config.sandbox.simulatorDomain.toLowerCase();
  const fetchPolicy = new AddressPolicy(config.attachments.fetchAllowAddresses);
  const ca = config.attachments.fetchCaFile ? readFileSync(config.attachments.fetchCaFile, 'utf8') : undefined;
  const fetchAttachment = (url: string) =>
    safeFetch(url, { lookup, policy: fetchPolicy, timeoutMs: config.attachments.fetchTimeoutMs, maxBytes: config.attachments.fetchMaxBytes, ca });
  const tracking = new TrackingService({ knex, clock, emailEvents, tokens: new TrackingTokens(infra.masterKey), scheme: config.tracking.scheme, trackingHost: config.tracking.host, publicUrl: infra.publicUrl });
  const links = new DownloadLinks(infra.masterKey, infra.publicUrl);
  return {
    emailEvents,
    tracking,
    deliveries: new DeliveryService({ knex, clock, events, emailEvents, suppressions, maxQueueSeconds: config.mta.maxQueueSeconds, cache: infra.lookupCache }),
    deliveryRetention: new DeliveryRetention({ knex, clock, transcriptRetentionDays: config.mta.transcriptRetentionDays }),
    domains,
    suppressions,
    templates,
    emails: new EmailService({ knex, clock, spool: infra.spool, events, links }),
    emailAcceptance: new EmailAcceptance({
      ...{ knex, clock, spool: infra.spool, units: infra.units, events, domains, teams, templates, suppressions, simulatorDomain, fetchAttachment },
      instrumentHtml: (html, id, domain) => tracking.instrument(html, id, domain),
    }),
    domainVerification: new DomainVerificationService({ knex, clock, lookup, targets, events, domains }),
    simulatorDomain,
  };
}

export type SendingServices = ReturnType<typeof createSendingServices>;
