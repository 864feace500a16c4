import type { AuditRecorder } from '../platform/audit/audit-log.service.js';
import { readFileSync } from 'node:fs';
import type { Knex } from 'knex';
import type { LookupCache } from '../../lib/cache/lookup-cache.js';
import type { Clock } from '../../lib/clock.js';
import type { Config } from '../../lib/config/config.schema.js';
import { egressPools, type EgressRegion } from '../../lib/config/egress-pools.js';
import { SecretBox } from '../../lib/crypto/secret-box.js';
import type { DnsLookup } from '../../lib/dns/dns-resolver.js';
import { AddressPolicy } from '../../lib/net/address-policy.js';
import { safeFetch } from '../../lib/net/safe-fetch.js';
import type { SegmentSpool } from '../../lib/spool/segment-spool.js';
import type { UnitsOfWork } from '../../db/unit-of-work.js';
import type { EventLog } from '../events/log/event-log.js';
import type { TeamService } from '../platform/teams/team.service.js';
import type { UsageLedger } from '../platform/usage/usage-ledger.js';
import { DeliveryRetention } from './deliveries/delivery-retention.js';
import { DeliveryService } from './deliveries/delivery.service.js';
import { EmailDeliveryLog } from './deliveries/email-delivery-log.js';
import { QueueInspection } from './deliveries/queue-inspection.js';
import { DomainClaimChecks } from './domains/claims/domain-claim-checks.js';
import { DomainClaimService } from './domains/claims/domain-claim.service.js';
import { createDomainAutoConfigure } from './domains/auto-configure/domain-auto-configure.service.js';
import { DomainVerificationService } from './domains/domain-verification.service.js';
import { DomainService } from './domains/domain.service.js';
import { recordTargets } from './domains/record-targets.js';
import { ReservedDomainNames } from './domains/reserved-names.js';
import { DownloadLinks } from './emails/download-links.js';
import { EmailAcceptance } from './emails/email-acceptance.js';
import { EmailTransitions } from './emails/email-transitions.js';
import { EmailRepository } from './emails/email.repository.js';
import { EmailService } from './emails/email.service.js';
import { LateOutcomes } from './deliveries/late-outcomes.service.js';
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
  events: EventLog;
  teams: TeamService;
  /** Accepted emails are recorded in the usage ledger in their own transaction. */
  usage: UsageLedger;
  /** Domain verification and claims record what DNS decided in the teams' audit logs. */
  audit: AuditRecorder;
};

/** Names the appliance answers as: no team may add them or a name under them. */
function applianceHostNames(config: Config): string[] {
  const helos = Object.values(egressPools(config)).flatMap((pool) => pool.map((egress) => egress.helo));
  return [config.sandbox.simulatorDomain, config.mta.hostname, config.inbound.mxHost, config.tracking.host, ...helos];
}

/**
 * The sending group: domains, templates, suppressions, emails (acceptance, reads, attachments),
 * deliveries and their outcomes, tracking.
 */
export function createSendingServices(infra: SendingInfrastructure) {
  const { knex, clock, config, lookup, events, teams } = infra;
  const emailTransitions = new EmailTransitions({ clock, events });
  const targets = recordTargets(config);
  const reservedNames = new ReservedDomainNames(applianceHostNames(config));
  const domains = new DomainService({
    knex,
    clock,
    lookup,
    targets,
    reservedNames,
    secrets: new SecretBox(infra.masterKey),
    events,
    cache: infra.lookupCache,
  });
  // Claims sit on top of domains: the domain service asks them through hooks, never imports them.
  const domainClaims = new DomainClaimService({ knex, clock, domains });
  domains.attachClaims(domainClaims.hooks);
  // Auto-configure (DNS UPDATE) keeps managed domains' zones in step on rotation and deletion.
  // What a verification round needs: the route's own service and auto-configure's both get it.
  const verificationDeps = { knex, clock, lookup, targets, events, domains, audit: infra.audit };
  const domainAutoConfigure = createDomainAutoConfigure({ ...verificationDeps, dns: config.dns });
  domains.attachManagedZone(domainAutoConfigure);
  const suppressions = new SuppressionService({ knex, clock, events });
  const templates = new TemplateService({ knex, clock });
  const simulatorDomain = config.sandbox.simulatorDomain.toLowerCase();
  const fetchPolicy = new AddressPolicy(config.attachments.fetchAllowAddresses);
  const ca = config.attachments.fetchCaFile ? readFileSync(config.attachments.fetchCaFile, 'utf8') : undefined;
  const fetchAttachment = (url: string) =>
    safeFetch(url, {
      lookup,
      policy: fetchPolicy,
      timeoutMs: config.attachments.fetchTimeoutMs,
      maxBytes: config.attachments.fetchMaxBytes,
      ca,
    });
  const tracking = new TrackingService({
    knex,
    clock,
    emailTransitions,
    tokens: new TrackingTokens(infra.masterKey),
    scheme: config.tracking.scheme,
    trackingHost: config.tracking.host,
    publicUrl: infra.publicUrl,
  });
  const links = new DownloadLinks(infra.masterKey, infra.publicUrl);
  const emailRows = new EmailRepository(knex);
  const deliveries = new DeliveryService({
    knex,
    clock,
    events,
    emailTransitions,
    suppressions,
    maxQueueSeconds: config.mta.maxQueueSeconds,
    cache: infra.lookupCache,
  });
  return {
    emailTransitions,
    /** Emails created since a moment, per meter: what the quotas count (GET /billing reads it too). */
    countEmails: (teamId: string, since: Date, meter: 'transactional' | 'marketing') =>
      emailRows.countSince(teamId, since, meter),
    downloadLinks: links,
    lateOutcomes: new LateOutcomes({ emails: emailRows, transitions: emailTransitions, suppressions }),
    tracking,
    deliveries,
    /** An email's deliveries and attempts for its team (GET /emails/{id}/deliveries). */
    emailDeliveryLog: new EmailDeliveryLog({
      deliveries: deliveries.repository,
      inspection: new QueueInspection(knex),
      pools: egressPools(config),
      regionOf: async (domainId) => ((await domains.current(domainId))?.region as EgressRegion | undefined) ?? null,
    }),
    deliveryRetention: new DeliveryRetention({
      knex,
      clock,
      transcriptRetentionDays: config.mta.transcriptRetentionDays,
    }),
    domains,
    suppressions,
    templates,
    emails: new EmailService({ knex, clock, spool: infra.spool, events, links }),
    emailAcceptance: new EmailAcceptance({
      ...{
        knex,
        clock,
        spool: infra.spool,
        units: infra.units,
        events,
        domains,
        teams,
        templates,
        suppressions,
        simulatorDomain,
        fetchAttachment,
        usage: infra.usage,
      },
      instrumentHtml: (html, id, domain) => tracking.instrument(html, id, domain),
    }),
    domainAutoConfigure,
    /** The safe fetch of attachments given by URL (inbox drafts store such files too). */
    fetchAttachment,
    domainVerification: new DomainVerificationService(verificationDeps),
    domainClaims,
    domainClaimChecks: new DomainClaimChecks({
      ...{ knex, clock, lookup, events, domains },
      ...{ cache: infra.lookupCache, audit: infra.audit },
    }),
    simulatorDomain,
  };
}

export type SendingServices = ReturnType<typeof createSendingServices>;
