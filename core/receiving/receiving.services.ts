import type { Knex } from 'knex';
import type { UnitsOfWork } from '../../db/unit-of-work.js';
import type { LookupCache } from '../../lib/cache/lookup-cache.js';
import type { FileBlobStore } from '../../lib/blob-store.js';
import type { SegmentSpool } from '../../lib/spool/segment-spool.js';
import type { Clock } from '../../lib/clock.js';
import type { Config } from '../../lib/config/config.schema.js';
import type { Logger } from '../../lib/logger.js';
import { createRecordResolver } from '../../lib/dns/record-resolver.js';
import type { EventLog } from '../events/log/event-log.js';
import type { TeamService } from '../platform/teams/team.service.js';
import type { UsageLedger } from '../platform/usage/usage-ledger.js';
import type { SendingServices } from '../sending/sending.services.js';
import { cachingResolver } from './dns-answer-cache.js';
import { InboundIntake } from './inbound-intake.js';
import { InboundRecipients } from './inbound-recipients.js';
import { authenticateMessage } from './message-authentication.js';
import { ReceivedEmailRepository } from './received-email.repository.js';
import { ReceivedEmailService } from './received-email.service.js';
import { ReportIntake } from './report-intake.js';
import { createDmarcReportService } from './dmarc-reports/dmarc-reports.services.js';

export type ReceivingInfrastructure = {
  knex: Knex;
  /** The process's group committer: intake transactions of concurrent messages share one fsync. */
  transact: <T>(work: (trx: Knex.Transaction) => Promise<T>) => Promise<T>;
  /** Units of work on that same committer: received rows of concurrent messages in one write. */
  units: UnitsOfWork;
  /** Teams are read for every received message: kept briefly, as API keys and domains are. */
  lookupCache: LookupCache;
  clock: Clock;
  config: Config;
  blobs: FileBlobStore;
  /** The process's message spool: raw received messages are records in it, beside accepted emails'. */
  spool: SegmentSpool;
  events: EventLog;
  teams: TeamService;
  sending: SendingServices;
  /** Kept received emails are recorded in the usage ledger with their rows. */
  usage: UsageLedger;
  /** Refused reports (a complaint naming someone the email was not sent to) are logged at warn. */
  logger: Logger;
};

/** The feedback-loop addresses in effect: configured, or fbl@<mta.hostname>. */
export function feedbackAddresses(config: Config): string[] {
  return config.inbound.fblAddresses.length > 0 ? config.inbound.fblAddresses : [`fbl@${config.mta.hostname}`];
}

/** How long SPF/DKIM/DMARC checks may take before a message is stored without results. */
const AUTHENTICATION_TIMEOUT_MS = 10_000;

/** How long mailauth's DNS answers are reused, across the checks of one message and the next ones. */
const DNS_ANSWER_TTL_MS = 30_000;

/** The receiving group: who the MX accepts mail for, durable intake, received mail reads, late reports. */
export function createReceivingServices(infra: ReceivingInfrastructure) {
  const { knex, clock, config, blobs, spool, events, teams, sending, logger } = infra;
  const repository = new ReceivedEmailRepository(knex);
  const recipients = new InboundRecipients(
    {
      domainsNamed: (name) => sending.domains.findByName(name),
      domainOfEmail: async (emailId) => {
        const email = await sending.lateOutcomes.findEmail(emailId);
        return email ? sending.domains.findById(email.domainId) : undefined;
      },
      domainById: (id) => sending.domains.findById(id),
    },
    feedbackAddresses(config),
    { localPart: config.dmarcReports.localPart, mxHost: config.inbound.mxHost },
  );
  const dmarcReports = createDmarcReportService({ knex, clock, config, domains: sending.domains });
  const receivedEmails = new ReceivedEmailService({ clock, blobs, spool, links: sending.downloadLinks, repository });
  // Raw received messages share the spool with accepted emails: the spool's retention keeps a
  // segment while either refers to it.
  sending.emails.keepSpoolSegmentsReferencedBy((segment) => receivedEmails.spoolSegmentReferenced(segment));
  const resolver = cachingResolver(createRecordResolver(config.dns), { ttlMs: DNS_ANSWER_TTL_MS, maxEntries: 10_000 });
  return {
    inboundRecipients: recipients,
    inboundIntake: new InboundIntake({
      transact: infra.transact,
      units: infra.units,
      clock,
      spool,
      recipients,
      repository,
      events,
      reports: new ReportIntake(sending.lateOutcomes, logger),
      // A suspension made in this process empties the cache at once; one made elsewhere is seen
      // within api.lookupCacheMs, as it is for the team's API keys.
      team: async (id) => (await infra.lookupCache.get(`receiving-team:${id}`, () => teams.get(id)))!,
      usage: infra.usage,
      dmarcReports,
      authenticate: (raw, envelope) =>
        authenticateMessage(raw, envelope, {
          resolver,
          mta: config.inbound.mxHost,
          timeoutMs: AUTHENTICATION_TIMEOUT_MS,
        }),
    }),
    receivedEmails,
    dmarcReports,
  };
}

export type ReceivingServices = ReturnType<typeof createReceivingServices>;
