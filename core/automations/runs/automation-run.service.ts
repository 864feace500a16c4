import type { Knex } from 'knex';
import type { UnitsOfWork } from '../../../db/unit-of-work.js';
import type { Clock } from '../../../lib/clock.js';
import { newId } from '../../../lib/ids.js';
import type { ContactProperty } from '../../audience/properties/contact-property.types.js';
import type { ContactService } from '../../audience/contacts/contact.service.js';
import type { SegmentFilterContext } from '../../audience/segments/segment-filter.js';
import type { EventLog } from '../../events/log/event-log.js';
import type { TeamService } from '../../platform/teams/team.service.js';
import type { EmailAcceptance } from '../../sending/emails/email-acceptance.js';
import type { PageQuery } from '../../shared/pagination/list-query.js';
import { AutomationRunRepository } from './automation-run.repository.js';
import { ADVANCE_BATCH, RunEngine } from './run-engine.js';
import { ENROL_BATCH, RunEnrolment } from './run-enrolment.js';
import { RunReads } from './run-reads.js';
import { RunTransitions } from './run-transitions.js';
import { SendEmailStep } from './send-email-step.js';
import { StepExecutor } from './step-executor.js';

export type AutomationRunDeps = {
  knex: Knex;
  clock: Clock;
  units: UnitsOfWork;
  events: Pick<EventLog, 'recordMany'>;
  teams: Pick<TeamService, 'get'>;
  emails: Pick<EmailAcceptance, 'acceptForAutomation'>;
  contacts: Pick<ContactService, 'find' | 'topicsOf' | 'updateWithin' | 'setTopicsWithin' | 'addToSegmentWithin'>;
  /** The team's declared properties and live topics (condition evaluation). */
  catalog: (teamId: string) => Promise<SegmentFilterContext>;
  /** The team's declared properties keyed lower-case (ContactPropertyService.byKey). */
  properties: (teamId: string, within: Knex) => Promise<Map<string, ContactProperty>>;
  /** The contact's one-click unsubscribe URL, for the List-Unsubscribe of automation emails. */
  unsubscribeUrl: (contactId: string) => string;
  /** Names this process's leases. */
  owner?: string;
  /** How long a claim holds occurrences or runs before another worker may take them (config automations.leaseMs). */
  leaseMs?: number;
  /** Unexpected errors of one step before its run fails (config automations.maxStepAttempts). */
  maxStepAttempts?: number;
  /** Runs of a claimed batch advanced at once (config automations.concurrency). */
  concurrency?: number;
};

/**
 * The run engine's face: enrolment (RunEnrolment), advancing (RunEngine), the scheduler's
 * tick over both, cancellation and the API's reads (RunReads).
 */
export class AutomationRunService {
  private counter = 0;
  private readonly owner: string;
  private readonly enrolment: RunEnrolment;
  private readonly engine: RunEngine;
  private readonly reads: RunReads;

  constructor(private readonly deps: AutomationRunDeps) {
    this.owner = deps.owner ?? `runs-${newId()}`;
    const token = () => `${this.owner}:${++this.counter}`;
    const leaseMs = deps.leaseMs ?? 120_000;
    const transitions = new RunTransitions(deps.events);
    this.enrolment = new RunEnrolment({
      knex: deps.knex,
      clock: deps.clock,
      events: deps.events,
      leaseMs,
      token,
      teams: deps.teams,
    });
    this.engine = new RunEngine({
      knex: deps.knex,
      clock: deps.clock,
      transitions,
      executor: new StepExecutor({ contacts: deps.contacts }),
      send: new SendEmailStep({
        units: deps.units,
        teams: deps.teams,
        emails: deps.emails,
        contacts: deps.contacts,
        transitions,
        unsubscribeUrl: deps.unsubscribeUrl,
      }),
      catalog: deps.catalog,
      properties: deps.properties,
      events: deps.events,
      leaseMs,
      maxStepAttempts: deps.maxStepAttempts ?? 5,
      concurrency: deps.concurrency ?? 8,
      token,
    });
    this.reads = new RunReads(deps.knex);
  }

  /** One scheduler tick: enrol what was sent, then advance what is due, within `budgetMs`. */
  async tick(budgetMs = 240_000): Promise<Record<string, number>> {
    const started = Date.now();
    let enrolled = 0;
    for (;;) {
      const batch = await this.enrol();
      enrolled += batch.runs;
      if (batch.occurrences < ENROL_BATCH || Date.now() - started > budgetMs / 2) break;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    let advanced = 0;
    for (;;) {
      const batch = await this.advance();
      advanced += batch;
      if (batch < ADVANCE_BATCH || Date.now() - started > budgetMs) break;
    }
    return { enrolled, advanced };
  }

  /** Claims a batch of unprocessed occurrences and enrols their contacts. */
  enrol(): Promise<{ occurrences: number; runs: number }> {
    return this.enrolment.enrol();
  }

  /** Claims a batch of due runs and moves each as far as it goes now; returns how many were claimed. */
  advance(): Promise<number> {
    return this.engine.advance();
  }

  /** Every live run of the automation becomes cancelled, in the caller's transaction. */
  async cancelLiveRuns(trx: Knex.Transaction, automationId: string): Promise<void> {
    await new AutomationRunRepository(trx).cancelLive(automationId, this.deps.clock.now());
  }

  /** The runs of an automation (the caller has checked it is the team's), newest first. */
  list(automationId: string, query: PageQuery & { status?: string | undefined }) {
    return this.reads.list(automationId, query);
  }

  /** One run with its steps in graph order. */
  get(automationId: string, runId: string) {
    return this.reads.get(automationId, runId);
  }
}
