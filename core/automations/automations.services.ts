import type { Knex } from 'knex';
import type { Clock } from '../../lib/clock.js';
import { NotFoundError } from '../../lib/errors.js';
import type { AudienceServices } from '../audience/audience.services.js';
import type { CustomEventService } from '../custom-events/custom-event.service.js';
import type { TemplateService } from '../sending/templates/template.service.js';
import { AutomationService, type CancelLiveRuns } from './automation.service.js';

export type AutomationsInfrastructure = {
  knex: Knex;
  clock: Clock;
  audience: Pick<AudienceServices, 'contactProperties' | 'topics' | 'segments'>;
  templates: Pick<TemplateService, 'get'>;
  customEvents: Pick<CustomEventService, 'findByName'>;
  /** The run engine's; a no-op until runs exist. */
  cancelLiveRuns: CancelLiveRuns;
};

/** The automations group: automations and their versions (the run engine joins later). */
export function createAutomationServices(infra: AutomationsInfrastructure) {
  const { audience, templates, customEvents } = infra;
  const automations = new AutomationService({
    knex: infra.knex,
    clock: infra.clock,
    cancelLiveRuns: infra.cancelLiveRuns,
    catalog: async (teamId) => {
      const [properties, topics] = await Promise.all([
        audience.contactProperties.byKey(teamId),
        audience.topics.all(teamId),
      ]);
      return {
        properties: new Map([...properties].map(([key, p]) => [key, { id: p.id, key: p.key, type: p.type }])),
        topics: new Map(topics.map((t) => [t.id, { id: t.id, defaultSubscription: t.defaultSubscription }])),
      };
    },
    lookups: (teamId) => ({
      customEventExists: async (name) => Boolean(await customEvents.findByName(teamId, name)),
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
  return { automations };
}

export type AutomationServices = ReturnType<typeof createAutomationServices>;
