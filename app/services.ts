import type { Knex } from 'knex';
import type { Dialect } from '../db/connection.js';
import { GroupCommitter } from '../db/group-commit.js';
import { UnitsOfWork } from '../db/unit-of-work.js';
import { watchWrites } from '../db/write-watcher.js';
import type { FileBlobStore } from '../lib/blob-store.js';
import { LookupCache } from '../lib/cache/lookup-cache.js';
import type { Clock } from '../lib/clock.js';
import type { Config } from '../lib/config/config.schema.js';
import type { DnsLookup } from '../lib/dns/dns-resolver.js';
import type { KeyValueStore } from '../lib/kv/kv.js';
import type { Logger } from '../lib/logger.js';
import type { SegmentSpool } from '../lib/spool/segment-spool.js';
import { createAccountServices } from '../core/accounts/accounts.services.js';
import { createAudienceServices } from '../core/audience/audience.services.js';
import { createPreferenceServices } from '../core/audience/preferences/preferences.wiring.js';
import { createCampaignServices } from '../core/campaigns/campaigns.services.js';
import { createAutomationServices } from '../core/automations/automations.services.js';
import { createCustomEventServices } from '../core/custom-events/custom-events.services.js';
import { createBillingServices } from '../core/platform/billing/billing.services.js';
import { ContentAccess } from '../core/platform/billing/content-access.js';
import { createEventsServices } from '../core/events/events.services.js';
import { createOAuthServices } from '../core/oauth/oauth.services.js';
import { createPlatformServices } from '../core/platform/platform.services.js';
import { createDomainHealth } from '../core/platform/doctor/domain-health.js';
import { recordTargets } from '../core/sending/domains/record-targets.js';
import { createInboxServices } from '../core/inboxes/inboxes.services.js';
import { teamSystemCaller, type TeamSystemCaller } from '../core/inboxes/agent/system-caller.js';
import type { Caller } from '../core/platform/auth/caller.js';
import { createReceivingServices } from '../core/receiving/receiving.services.js';
import { createSendingServices, type SendingServices } from '../core/sending/sending.services.js';
import { sendEmailSchema } from '../core/sending/emails/email.schemas.js';
import { EmailShareService } from '../core/sending/emails/share/email-share.service.js';
import { receivedEmailLoader, sentEmailLoader } from '../core/sending/emails/share/shared-email-loaders.js';
import { usageCounts } from '../core/platform/usage/usage-counts.js';
import { UsageSnapshot } from '../core/platform/usage/usage-snapshot.js';
import { NotFoundError } from '../lib/errors.js';
import { createAiServices } from '../core/ai/ai.services.js';
import { classifyReply } from '../core/sending/bounces/bounce-classifier.js';
import { QueueInspection } from '../core/sending/deliveries/queue-inspection.js';
import { OperatorConsole } from './operator/operator-console.js';
import { createTlsReportServices } from '../core/sending/tls-reports/tls-reports.services.js';
import { reportMailInput } from '../core/sending/tls-reports/report-mail.js';
import { createShapingServices } from '../core/sending/shaping/shaping.services.js';
import { createSsoServices, type SsoServices } from '../core/sso/sso.services.js';

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
  /** Where people open the dashboard: dashboard.publicUrl (or its listener), else publicUrl. */
  dashboardUrl: () => string;
  /** The resolver domain verification uses (tests point it at their own DNS server). */
  lookup: DnsLookup;
  /** The master key that seals secrets at rest. */
  masterKey: string;
  /** The process logger (account links are logged when no account mail sender is configured). */
  logger: Logger;
};

/**
 * Every domain service, built once per process from the infrastructure it runs on: each group
 * of `core/` wires its own services; this composes them and owns what they share.
 */
export function createServices(infra: Infrastructure) {
  const { knex } = infra;
  // One group committer per process: concurrent units of work share durable commits.
  const committer = new GroupCommitter(knex);
  const units = new UnitsOfWork(committer);
  // Keys, teams and verified domains are read by every request: kept briefly, and forgotten at
  // once when this process writes any of those tables (other processes: within the TTL).
  const lookupCache = new LookupCache(infra.config.api.lookupCacheMs);
  watchWrites(knex, ['api_keys', 'teams', 'domains', 'egress_blocks'], () => lookupCache.invalidate());
  const events = createEventsServices(infra);
  // The API-key service asks the sending group's domains, built after it: resolved at call time.
  let sending: SendingServices | undefined;
  const platform = createPlatformServices({
    ...infra,
    units,
    lookupCache,
    findVerifiedDomain: (teamId, id) => sending!.domains.findVerified(teamId, id),
  });
  sending = createSendingServices({
    ...infra,
    units,
    lookupCache,
    events: events.eventLog,
    teams: platform.teams,
    usage: platform.usage,
    audit: platform.audit,
  });
  // GET /domains/{id}/health: the doctor's checks of one domain, over the sending group's domains.
  const domainHealth = createDomainHealth({ ...infra, targets: recordTargets(infra.config) }, sending.domains);
  const receiving = createReceivingServices({
    ...infra,
    transact: (work) => committer.run(work),
    units,
    lookupCache,
    events: events.eventLog,
    teams: platform.teams,
    sending,
    usage: platform.usage,
  });
  // Shared inboxes: conversations over received and sent mail; received mail is filed in the
  // intake's transaction, and mail from an inbox goes through the ordinary acceptance step.
  const inboxGroup = createInboxServices<Caller | TeamSystemCaller>({
    ...infra,
    events: events.eventLog,
    domains: {
      ofTeamNamed: async (teamId, names) =>
        (await sending!.domains.repository.allForTeam(teamId)).filter((domain) => names.includes(domain.name)),
      byId: (id) => sending!.domains.findById(id),
    },
    // Members by address and by the signed-in user: team_members carries both (user_id since accounts).
    members: {
      byEmail: async (teamId, email) => {
        const row = (await knex('team_members')
          .where({ team_id: teamId })
          .whereRaw('lower(email) = ?', [email.toLowerCase()])
          .first('user_id', 'email')) as { user_id: string | null; email: string } | undefined;
        return row ? { userId: row.user_id, email: row.email } : undefined;
      },
      emailOf: async (teamId, userId) =>
        (
          (await knex('team_members').where({ team_id: teamId, user_id: userId }).first('email')) as
            { email: string } | undefined
        )?.email,
    },
    bodies: {
      inbound: async (teamId, id) => {
        const detail = await receiving.receivedEmails.get(teamId, id);
        return { html: detail.html, text: detail.text };
      },
      outbound: async (teamId, id) => {
        const [{ bodies }, attachments] = await Promise.all([
          sending!.emails.get(teamId, id),
          sending!.emails.attachments(teamId, id),
        ]);
        return {
          ...bodies,
          attachments: attachments.map(({ attachment }) => ({
            id: attachment.id,
            filename: attachment.filename,
            size: attachment.size,
          })),
        };
      },
    },
    send: {
      // The agent's forwards come from the team itself, with no API key, as an automation's mail does.
      accept: (caller, input, unit) =>
        caller.apiKey === null
          ? sending!.emailAcceptance.acceptForAutomation(caller.team, input, unit)
          : sending!.emailAcceptance.accept(caller, input, unit),
      originalAttachments: async (message) => {
        const files =
          message.direction === 'inbound'
            ? await receiving.receivedEmails.attachmentContents(message.teamId, message.id)
            : await sending!.emails.attachmentContents(message.teamId, message.id);
        return files.map(({ attachment, bytes }) => ({
          filename: attachment.filename,
          contentType: attachment.contentType,
          bytes,
        }));
      },
    },
    fetchAttachment: sending.fetchAttachment,
    // The inbox agent reads new threads with the AI group's model (built below, so asked for per run).
    agent: {
      ai: () => ({ provider: ai.aiProvider, access: ai.aiAccess }),
      team: (teamId) => platform.teams.get(teamId),
      units,
      systemCaller: teamSystemCaller,
    },
  });
  receiving.inboundIntake.onReceivedMail(inboxGroup.inboxConversations.receive);
  const audience = createAudienceServices({ ...infra, events: events.eventLog });
  // A complaint about an email unsubscribes the contact at that address, in the complaint's transaction.
  sending.lateOutcomes.onComplaint((trx, complaint) =>
    audience.contacts
      .unsubscribeWithin(trx, complaint.teamId, complaint.address, { source: 'complaint' })
      .then(() => undefined),
  );
  const pages = createPreferenceServices({ ...infra, audience, team: (teamId) => platform.teams.get(teamId) });
  receiving.inboundIntake.onUnsubscribeMail((trx, localPart) => pages.preferences.unsubscribeByMail(trx, localPart));
  const campaigns = createCampaignServices({
    ...infra,
    units,
    settings: platform.settings,
    teams: platform.teams,
    audience,
    sending,
    contactLinks: pages.contactLinks,
    preferences: pages.preferences,
    eventLog: events.eventLog,
  });
  const customEvents = createCustomEventServices({ ...infra, units });
  // The run engine sends through the ordinary acceptance path and records its events in the log.
  const automations = createAutomationServices({
    ...infra,
    units,
    audience,
    templates: sending.templates,
    customEvents: customEvents.customEvents,
    eventLog: events.eventLog,
    teams: platform.teams,
    emailAcceptance: sending.emailAcceptance,
    unsubscribeUrl: (contactId) => pages.contactLinks.unsubscribeUrl(contactId),
  });
  audience.contactProperties.alsoUsedBy((teamId, key) => automations.automations.usingProperty(teamId, key));
  // GET /billing reports the quotas' own counts: the sending group's emails, counted per meter;
  // the payment provider's subscription sets the team's plan (in the teams group).
  // A plan without single sign-on takes it out of use in the plan's own transaction (the sso
  // group is built after the accounts group, below: resolved at call time).
  let ssoGroup: SsoServices | undefined;
  const billingGroup = createBillingServices({
    ...infra,
    transact: (work) => committer.run(work),
    countEmails: sending.countEmails,
    memberCount: async (teamId) => (await platform.teams.members(teamId)).length,
    setTeamPlan: async (trx, teamId, planCode) => {
      await platform.teams.setPlan(teamId, planCode, trx);
      await ssoGroup!.sso.planChanged(teamId, planCode, trx);
    },
    ssoConfigured: (teamId) => ssoGroup!.sso.isConfigured(teamId),
    teamExists: async (db, teamId) => Boolean(await db('teams').where({ id: teamId }).first('id')),
    usageTotal: (teamId, category, from, to) => platform.usage.total(teamId, category, from, to),
    audit: platform.audit,
  });
  // GET /usage: the quotas' counters, the usage ledger and the plan's limits in one snapshot.
  const usageSnapshot = new UsageSnapshot({
    clock: infra.clock,
    countEmails: sending.countEmails,
    ledger: platform.usage,
    counts: usageCounts(knex),
    rateLimitPerSecond: infra.config.api.rateLimitPerSecond,
  });
  // Over quota, a team sees its emails' metadata but not their content (403 email_above_quota).
  const contentAccess = new ContentAccess({ clock: infra.clock, countEmails: sending.countEmails });
  // Share links show sent or received emails: built here, where both groups exist.
  const emailShares = new EmailShareService({
    knex,
    clock: infra.clock,
    publicUrl: infra.publicUrl,
    sent: sentEmailLoader(sending.emails),
    received: receivedEmailLoader(receiving.receivedEmails),
    assertContentAvailable: async (teamId) => contentAccess.assertAvailable(await platform.teams.get(teamId)),
  });
  // Dashboard accounts; their mail goes through the ordinary acceptance path as the operator's team.
  const { mailFrom, mailTeamId } = infra.config.accounts;
  const accounts = createAccountServices({
    ...infra,
    findTeam: (teamId) =>
      platform.teams.get(teamId).catch((err: unknown) => {
        if (err instanceof NotFoundError) return undefined;
        throw err;
      }),
    createTeam: (name, trx) => platform.teams.create({ name }, trx),
    sendAccountMail:
      mailFrom && mailTeamId
        ? async (message) => {
            const input = sendEmailSchema.parse({ from: mailFrom, ...message, to: [message.to] });
            await sending!.emailAcceptance.acceptForAccountMail(await platform.teams.get(mailTeamId), input);
          }
        : undefined,
  });
  // Single sign-on per team: sessions from the accounts group; covered domains must be verified
  // sending domains; password sign-in asks it whether an address must use its provider.
  ssoGroup = createSsoServices({
    ...infra,
    sessions: accounts.userSessions,
    throttle: accounts.ssoDiscoveryThrottle,
    endPasswordSessions: (teamId, domains) => accounts.accounts.endPasswordSessions(teamId, domains),
    findTeam: (teamId) =>
      platform.teams.get(teamId).catch((err: unknown) => {
        if (err instanceof NotFoundError) return undefined;
        throw err;
      }),
    verifiedDomains: async (teamId) =>
      (await sending!.domains.repository.allForTeam(teamId))
        .filter((domain) => domain.status === 'verified')
        .map((domain) => domain.name.toLowerCase()),
    audit: platform.audit,
  });
  accounts.accounts.requireSsoWith((email) => ssoGroup!.ssoSignIn.enforcedFor(email));
  // RFC 8460 TLS reports: the mta's result sink, and the daily reports; mailto: reports go
  // through the ordinary acceptance path as the operator's team, like account mail.
  const reportFrom = infra.config.tlsReports.mailFrom ?? mailFrom;
  const tlsReports = createTlsReportServices({
    ...infra,
    sendMail:
      reportFrom && mailTeamId
        ? async (mail) => {
            const team = await platform.teams.get(mailTeamId);
            await sending!.emailAcceptance.acceptForAccountMail(team, reportMailInput(reportFrom, mail));
          }
        : undefined,
  });
  // The OAuth authorization server; its access tokens authenticate like keys (with scopes).
  const oauth = createOAuthServices({
    ...infra,
    limits: {
      perIpPerHour: infra.config.oauth.registrationsPerIpPerHour,
      perDay: infra.config.oauth.registrationsPerDay,
    },
  });
  platform.apiKeys.acceptOAuthTokens((token, audience) => oauth.oauthTokens.authenticate(token, audience));
  // The AI helpers: credits in the usage ledger; a diagnosis reads what the sending and events
  // groups know of the email (timeline, attempts, suppressions, domain health, egress rests).
  const queueInspection = new QueueInspection(knex);
  const ai = createAiServices({
    ...infra,
    usage: platform.usage,
    template: async (teamId, idOrAlias) => {
      const { current } = await sending!.templates.get(teamId, idOrAlias);
      return { subject: current.subject, html: current.html, text: current.text };
    },
    findEmail: (teamId, emailId) => sending!.emails.find(teamId, emailId),
    sources: {
      events: async (teamId, emailId) => (await events.eventLog.ofEmail(teamId, emailId, { limit: 100 })).events,
      deliveries: (email) => sending!.emailDeliveryLog.ofEmail(email, { transcripts: true }),
      suppressed: (teamId, addresses) => sending!.suppressions.suppressedAmong(teamId, addresses),
      domainHealth: (teamId, domainId) => domainHealth.check(teamId, domainId),
      activeBlocks: (now) => queueInspection.activeBlocks(now),
      classify: (reply) => classifyReply(reply),
    },
  });
  // Traffic shaping and warm-up; a complaint about marketing mail counts towards the team's
  // complaint rate at the provider (counted after the complaint's own work, never failing it).
  const { shaping } = createShapingServices(infra);
  sending.lateOutcomes.onComplaint(async (_trx, complaint) => {
    void (async () => {
      const email = await sending!.lateOutcomes.findEmail(complaint.emailId);
      if (email?.broadcastId) await shaping.complaints.complained(complaint.teamId, complaint.address);
    })().catch((err: unknown) => infra.logger.warn({ err }, 'could not count a complaint towards the complaint rate'));
  });
  // The admin API's reads and switches beyond the team services (queue, pools, doctor, system).
  const operatorConsole = new OperatorConsole({
    ...infra,
    deliveries: sending.deliveries,
    settings: platform.settings,
    readiness: () => platform.readiness.ready(),
  });
  return {
    ...platform,
    ...accounts,
    ...oauth,
    ...events,
    ...sending,
    ...receiving,
    ...inboxGroup,
    ...audience,
    ...pages,
    ...campaigns,
    ...customEvents,
    ...automations,
    ...ai,
    ...billingGroup,
    ...ssoGroup,
    shaping,
    usageSnapshot,
    contentAccess,
    domainHealth,
    emailShares,
    lookupCache,
    units,
    operatorConsole,
    tlsReports,
  };
}

export type Services = ReturnType<typeof createServices>;
