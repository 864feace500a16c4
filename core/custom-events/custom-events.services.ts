import type { Knex } from 'knex';
import type { UnitsOfWork } from '../../db/unit-of-work.js';
import type { Clock } from '../../lib/clock.js';
import { CustomEventService } from './custom-event.service.js';

export type CustomEventsInfrastructure = { knex: Knex; clock: Clock; units: UnitsOfWork };

/**
 * The custom events group (named apart from core/events, the event log): definitions and the
 * queue of sent events the automations engine consumes.
 */
export function createCustomEventServices(infra: CustomEventsInfrastructure) {
  return { customEvents: new CustomEventService({ knex: infra.knex, clock: infra.clock, units: infra.units }) };
}

export type CustomEventServices = ReturnType<typeof createCustomEventServices>;
