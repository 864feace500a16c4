import type { Knex } from 'knex';
import { isUniqueViolation } from '../../db/errors.js';
import type { Clock } from '../../lib/clock.js';
import { MissingRequiredFieldError, NotFoundError, UnprocessableValidationError } from '../../lib/errors.js';
import { isUuid, newId } from '../../lib/ids.js';
import type { SegmentFilterContext } from '../audience/segments/segment-filter.js';
import type { CreateAutomationInput, ListAutomationsQuery, UpdateAutomationInput } from './automation.schemas.js';
import { AutomationRepository } from './automation.repository.js';
import {
  MAX_NAME_LENGTH,
  triggerOf,
  type Automation,
  type AutomationStatus,
  type AutomationVersion,
} from './automation.types.js';
import { checkGraph, propertyKeysOfGraph, type GraphInput } from './graph-validation.js';
import { checkTeamReferences, type TeamLookups } from './team-references.js';

/**
 * Cancels every live run of an automation, inside the transaction that stops or deletes it.
 * The run engine provides it; until runs exist, app/services.ts passes a function that does
 * nothing (there is nothing to cancel).
 */
export type CancelLiveRuns = (trx: Knex.Transaction, automationId: string) => Promise<void>;

export type AutomationDeps = {
  knex: Knex;
  clock: Clock;
  /** The team's lookups for graph validation (custom events, templates, segments). */
  lookups: (teamId: string) => TeamLookups;
  /** The team's declared properties and live topics, for condition and update configs. */
  catalog: (teamId: string) => Promise<SegmentFilterContext>;
  cancelLiveRuns: CancelLiveRuns;
  /** Told after every change of what the team's automations listen to (the platform trigger index). */
  triggersChanged?: (teamId: string) => void;
};

/** A graph as published: its steps, connections and what its trigger listens to. */
type PublishedGraph = Pick<AutomationVersion, 'steps' | 'connections' | 'trigger'>;

export type AutomationView = { automation: Automation; version: AutomationVersion };

// One message for unknown, malformed and another team's: the answers must not differ.
const notFound = () => new NotFoundError('Automation not found');

/**
 * Automations: an identity (name, status, active version) plus immutable versions of the graph.
 * Creating writes version 1; a PATCH carrying steps and connections validates the whole graph
 * and publishes the next version, which becomes active (runs pin the version they started on,
 * so runs in flight keep theirs). Stop disables and cancels live runs; delete is soft (404 from
 * then on) and cancels live runs too. Duplicate copies the active graph as version 1 of a new,
 * disabled automation.
 */
export class AutomationService {
  constructor(private readonly deps: AutomationDeps) {}

  private repository(within: Knex = this.deps.knex): AutomationRepository {
    return new AutomationRepository(within);
  }

  /** Validates the whole graph against the team; 422 with one errors[] entry per offending step key. */
  async validateGraph(teamId: string, graph: GraphInput): Promise<PublishedGraph> {
    const catalog = await this.deps.catalog(teamId);
    const check = checkGraph(graph, { ...catalog, now: this.deps.clock.now() });
    const lookups = this.deps.lookups(teamId);
    await checkTeamReferences(check.references, lookups, check.problems);
    if (check.problems.size > 0) {
      const errors = check.problems.toErrors();
      throw new UnprocessableValidationError(
        `The automation graph is not valid: ${errors[0]!.path}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''}`,
        { errors },
      );
    }
    // The definition live now is the one this version listens to (a namesake created later is not).
    const trigger = triggerOf(check.steps);
    const definitionId = trigger.event.startsWith('svc:')
      ? null
      : ((await lookups.customEventId(trigger.event)) ?? null);
    return { steps: check.steps, connections: check.connections, trigger: { ...trigger, definitionId } };
  }

  async create(teamId: string, input: CreateAutomationInput): Promise<Automation> {
    const graph = await this.validateGraph(teamId, input);
    return this.insertNew(teamId, input.name, input.status ?? 'disabled', graph);
  }

  private async insertNew(
    teamId: string,
    name: string,
    status: AutomationStatus,
    graph: PublishedGraph,
  ): Promise<Automation> {
    const now = this.deps.clock.now();
    const id = newId();
    const version: AutomationVersion = { id: newId(), automationId: id, number: 1, ...graph, createdAt: now };
    const automation: Automation = {
      id,
      teamId,
      name,
      status,
      activeVersionId: version.id,
      createdAt: now,
      updatedAt: null,
    };
    await this.deps.knex.transaction((trx) => this.repository(trx).insert(automation, version));
    this.deps.triggersChanged?.(teamId);
    return automation;
  }

  async get(teamId: string, id: string): Promise<AutomationView> {
    const automation = isUuid(id) ? await this.repository().findById(teamId, id.toLowerCase()) : undefined;
    if (!automation) throw notFound();
    const version = await this.repository().findVersion(automation.activeVersionId);
    return { automation, version: version! };
  }

  list(teamId: string, query: ListAutomationsQuery) {
    return this.repository().list(teamId, query);
  }

  /**
   * Name and status change in place; steps with connections publish a new version (validated
   * first; one without the other is 422 naming the missing one). Disabling lets live runs go on.
   */
  async update(teamId: string, id: string, input: UpdateAutomationInput): Promise<Automation> {
    const { automation } = await this.get(teamId, id);
    if ((input.steps === undefined) !== (input.connections === undefined)) {
      const missing = input.steps === undefined ? 'steps' : 'connections';
      throw new MissingRequiredFieldError(`steps and connections are given together: ${missing} is missing`, {
        errors: [{ path: missing, message: 'is required with ' + (missing === 'steps' ? 'connections' : 'steps') }],
      });
    }
    if (input.name === undefined && input.status === undefined && input.steps === undefined)
      throw new UnprocessableValidationError('Give at least one of name, status, or steps with connections', {
        errors: [{ path: 'name', message: 'nothing to update' }],
      });
    const graph =
      input.steps && input.connections
        ? await this.validateGraph(teamId, { steps: input.steps, connections: input.connections })
        : undefined;
    const at = this.deps.clock.now();
    const updated = await this.withRetryOnVersionRace(() =>
      this.deps.knex.transaction(async (trx) => {
        const repository = this.repository(trx);
        const current = await repository.findById(teamId, automation.id, { forUpdate: true });
        if (!current) throw notFound();
        let activeVersionId: string | undefined;
        if (graph) {
          const version: AutomationVersion = {
            id: newId(),
            automationId: current.id,
            number: (await repository.latestVersionNumber(current.id)) + 1,
            ...graph,
            createdAt: at,
          };
          await repository.insertVersion(version);
          activeVersionId = version.id;
        }
        if (!(await repository.update(current.id, { name: input.name, status: input.status, activeVersionId }, at)))
          throw notFound();
        return {
          ...current,
          name: input.name ?? current.name,
          status: input.status ?? current.status,
          activeVersionId: activeVersionId ?? current.activeVersionId,
          updatedAt: at,
        };
      }),
    );
    this.deps.triggersChanged?.(teamId);
    return updated;
  }

  /** Two publications racing for the same number: the loser takes the next one. */
  private async withRetryOnVersionRace<T>(work: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await work();
      } catch (err) {
        if (attempt >= 3 || !isUniqueViolation(err)) throw err;
      }
    }
  }

  /** Disables the automation and cancels its live runs, in one transaction. */
  async stop(teamId: string, id: string): Promise<Automation> {
    const { automation } = await this.get(teamId, id);
    const at = this.deps.clock.now();
    await this.deps.knex.transaction(async (trx) => {
      if (!(await this.repository(trx).update(automation.id, { status: 'disabled' }, at))) throw notFound();
      await this.deps.cancelLiveRuns(trx, automation.id);
    });
    this.deps.triggersChanged?.(teamId);
    return { ...automation, status: 'disabled', updatedAt: at };
  }

  /** Soft: 404 from then on; versions stay for the runs that pinned them; live runs cancelled. */
  async remove(teamId: string, id: string): Promise<Automation> {
    const { automation } = await this.get(teamId, id);
    await this.deps.knex.transaction(async (trx) => {
      if (!(await this.repository(trx).softDelete(automation.id, this.deps.clock.now()))) throw notFound();
      await this.deps.cancelLiveRuns(trx, automation.id);
    });
    this.deps.triggersChanged?.(teamId);
    return automation;
  }

  /**
   * A new automation, disabled, named "<name> (copy)", whose version 1 is the active graph as
   * published (not validated again: references that went away since are the engine's to meet,
   * as for the original).
   */
  async duplicate(teamId: string, id: string): Promise<Automation> {
    const { automation, version } = await this.get(teamId, id);
    const name = `${automation.name} (copy)`;
    return this.insertNew(
      teamId,
      name.length <= MAX_NAME_LENGTH ? name : `${automation.name.slice(0, MAX_NAME_LENGTH - 7)} (copy)`,
      'disabled',
      { steps: version.steps, connections: version.connections, trigger: version.trigger },
    );
  }

  /** A version by id, whatever its automation's state (what a run pinned). */
  findVersion(versionId: string, within?: Knex): Promise<AutomationVersion | undefined> {
    return this.repository(within).findVersion(versionId);
  }

  /** Every version of an automation, oldest first. */
  versions(automationId: string, within?: Knex): Promise<AutomationVersion[]> {
    return this.repository(within).versions(automationId);
  }

  /**
   * Labels of the live automations whose active version names the contact property `key` (a
   * condition field properties.<key> or a contact_update property): what keeps the property
   * from being deleted. Same signature as the property service's usage callback.
   */
  async usingProperty(teamId: string, key: string): Promise<string[]> {
    const wanted = key.toLowerCase();
    return (await this.repository().allWithActiveVersion(teamId))
      .filter(({ version }) => propertyKeysOfGraph(version.steps).includes(wanted))
      .map(({ automation }) => `automation "${automation.name}" (${automation.id})`);
  }
}
