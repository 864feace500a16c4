import type { Knex } from 'knex';
import type { Dialect } from '../../db/connection.js';
import type { Clock } from '../../lib/clock.js';
import type { Config } from '../../lib/config/config.schema.js';
import { NotFoundError } from '../../lib/errors.js';
import type { AudienceServices } from '../audience/audience.services.js';
import type { CustomEventService } from '../custom-events/custom-event.service.js';
import type { UnitsOfWork } from '../../db/unit-of-work.js';
import type { EventLog } from '../events/log/event-log.js';
import type { TeamService } from '../platform/teams/team.service.js';
import type { EmailAcceptance } from '../sending/emails/email-acceptance.js';
import type { TemplateService } from '../sending/templates/template.service.js';
import { AutomationService } from './automation.service.js';
import { AutomationRunService } from './runs/automation-run.service.js';
import { AutomationVersionReads } from './version-reads.js';
import { PlatformOccurrences } from './triggers/platform-occurrences.js';
import { PlatformTriggerIndex } from './triggers/platform-trigger-index.js';
import { SegmentEntryWatch } from './triggers/segment-entry-watch.js';

export type AutomationsInfrastructure = {
  knex: Knex;
  dialect: Dialect;
  clock: Clock;
  config: Pick<Config, 'automations'>;
  units: UnitsOfWork;
  audience: Pick<AudienceServices, 'contactProperties' | 'topics' | 'segments' | 'contacts' | 'consent'>;
  templates: Pick<TemplateService, 'get'>;
  customEvents: Pick<CustomEventService, 'findByName'>;
  eventLog: Pick<EventLog, 'recordMany' | 'follow'>;
  /** The contact's one-click unsubscribe URL (List-Unsubscribe of automation emails). */
  unsubscribeUrl: (contactId: string) => string;
  teams: Pick<TeamService, 'get'>;
  emailAcceptance: Pick<EmailAcceptance, 'acceptForAutomation'>;
};

/** The automations group: automations and their versions, the run engine and the platform triggers. */
export function createAutomationServices(infra: AutomationsInfrastructure) {
  const { audience, templates, customEvents } = infra;
  // Platform happenings become svc: occurrences in the transaction that records them.
  const triggerIndex = new PlatformTriggerIndex(infra.config.automations.triggerCacheMs);
  const platformOccurrences = new PlatformOccurrences({ clock: infra.clock, index: triggerIndex });
  infra.eventLog.follow(platformOccurrences);
  audience.consent.follow((trx, contact, changes) => platformOccurrences.consentChanged(trx, contact, changes));
  const segmentEntries = new SegmentEntryWatch({
    knex: infra.knex,
    clock: infra.clock,
    index: triggerIndex,
    occurrences: platformOccurrences,
    segments: audience.segments,
  });
  const catalog = async (teamId: string) => {
    const [properties, topics] = await Promise.all([
      audience.contactProperties.byKey(teamId),
      audience.topics.all(teamId),
    ]);
    return {
      properties: new Map([...properties].map(([key, p]) => [key, { id: p.id, key: p.key, type: p.type }])),
      topics: new Map(topics.map((t) => [t.id, { id: t.id, defaultSubscription: t.defaultSubscription }])),
    };
  };
  const automationRuns = new AutomationRunService({
    knex: infra.knex,
    clock: infra.clock,
    units: infra.units,
    events: infra.eventLog,
    teams: infra.teams,
    emails: infra.emailAcceptance,
    contacts: audience.contacts,
    catalog,
    properties: (teamId, within) => audience.contactProperties.byKey(teamId, within),
    unsubscribeUrl: infra.unsubscribeUrl,
    leaseMs: infra.config.automations.leaseMs,
    maxStepAttempts: infra.config.automations.maxStepAttempts,
    concurrency: infra.config.automations.concurrency ?? (infra.dialect === 'sqlite' ? 1 : 8),
  });
  const automations = new AutomationService({
    knex: infra.knex,
    clock: infra.clock,
    cancelLiveRuns: (trx, automationId) => automationRuns.cancelLiveRuns(trx, automationId),
    triggersChanged: () => triggerIndex.forget(),
    catalog,
    lookups: (teamId) => ({
      customEventId: async (name) => (await customEvents.findByName(teamId, name))?.id,
      segmentExists: (id) => audience.segments.isLive(teamId, id),
      templateState: async (idOrAlias) => {
        try {
          const { template } = await templates.get(teamId, idOrAlias);
          return template.publishedVersionId ? 'published' : 'draft';
        } catch (err) {
          if (err instanceof NotFoundError) return 'missing';
          throw err;
        }
      },
    }),
  });
  const automationVersions = new AutomationVersionReads(infra.knex);
  return { automations, automationRuns, automationVersions, segmentEntries };
}

export type AutomationServices = ReturnType<typeof createAutomationServices>;
