import type { Knex } from 'knex';
import type { UnitOfWork, UnitsOfWork } from '../../../db/unit-of-work.js';
import type { Clock } from '../../../lib/clock.js';
import { crashPoint } from '../../../lib/crash-point.js';
import { AppError, InvalidParameterError, NotFoundError } from '../../../lib/errors.js';
import { isUuid, newId } from '../../../lib/ids.js';
import type { ContactService } from '../../audience/contacts/contact.service.js';
import { applySegmentFilter, type SegmentFilterContext } from '../../audience/segments/segment-filter.js';
import { EventOccurrenceRepository, type StoredOccurrence } from '../../custom-events/event-occurrence.repository.js';
import type { EventLog } from '../../events/log/event-log.js';
import type { EventType } from '../../events/log/event.types.js';
import type { TeamService } from '../../platform/teams/team.service.js';
import type { EmailAcceptance } from '../../sending/emails/email-acceptance.js';
import { sendEmailSchema } from '../../sending/emails/email.schemas.js';
import type { PageQuery } from '../../shared/pagination/list-query.js';
import { parseScheduledAt } from '../../shared/scheduling/schedule-phrase.js';
import { AutomationRepository } from '../automation.repository.js';
import type { Automation, AutomationStep, AutomationVersion } from '../automation.types.js';
import { checkCondition } from '../condition-rules.js';
import { AutomationRunRepository } from './automation-run.repository.js';
import { RUN_STATUSES, type AutomationRun, type AutomationRunStep, type RunStatus } from './automation-run.types.js';

export type AutomationRunDeps = {
  knex: Knex;
  clock: Clock;
  units: UnitsOfWork;
  events: Pick<EventLog, 'recordMany'>;
  teams: Pick<TeamService, 'get'>;
  emails: Pick<EmailAcceptance, 'acceptForAutomation'>;
  contacts: Pick<ContactService, 'find' | 'update' | 'setTopics' | 'addToSegment'>;
  /** The team's declared properties and live topics (condition evaluation). */
  catalog: (teamId: string) => Promise<SegmentFilterContext>;
  /** Names this process's leases. */
  owner?: string;
  /** How long a claim holds occurrences or runs before another worker may take them (config automations.leaseMs). */
  leaseMs?: number;
};

const BATCH = 100;
/** Steps one run may take in one claim before it yields (a graph has at most 150 steps). */
const MAX_STEPS_PER_CLAIM = 200;

/** What executing one step decided. */
type Outcome =
  | { kind: 'next'; next: string | null }
  | { kind: 'park'; until: Date }
  | { kind: 'fail'; error: string }
  /** Already committed with the step's own work (a send), or the run was cancelled meanwhile. */
  | { kind: 'committed'; next: string | null }
  | { kind: 'stop' };

type Transition = {
  run: AutomationRun;
  step: AutomationRunStep;
  status: RunStatus;
  nextStepKey: string | null;
  wakeAt: Date | null;
  error: string | null;
  at: Date;
};

/** Thrown inside a send's unit of work when the run was cancelled meanwhile: nothing commits. */
class RunNotRunning extends Error {
  constructor(runId: string) {
    super(`automation run ${runId} is no longer running`);
  }
}

/** The step to follow from `key`: the default edge, or for a condition the branch taken. */
export function successor(
  version: Pick<AutomationVersion, 'connections'>,
  key: string,
  type: 'default' | 'condition_met' | 'condition_not_met' = 'default',
): string | null {
  return version.connections.find((c) => c.from === key && c.type === type)?.to ?? null;
}

/** The steps of a version in walk order from the trigger: depth first, condition_met before condition_not_met. */
export function stepsInGraphOrder(version: Pick<AutomationVersion, 'steps' | 'connections'>): AutomationStep[] {
  const byKey = new Map(version.steps.map((s) => [s.key, s]));
  const order: AutomationStep[] = [];
  const seen = new Set<string>();
  const rank = { default: 0, condition_met: 1, condition_not_met: 2 } as const;
  const visit = (key: string) => {
    const step = byKey.get(key);
    if (!step || seen.has(key)) return;
    seen.add(key);
    order.push(step);
    const out = version.connections.filter((c) => c.from === key).sort((a, b) => rank[a.type] - rank[b.type]);
    for (const edge of out) visit(edge.to);
  };
  const trigger = version.steps.find((s) => s.type === 'trigger');
  if (trigger) visit(trigger.key);
  return order;
}

const runEventData = (run: AutomationRun, status: RunStatus, error: string | null = null) => ({
  object: 'automation_run',
  id: run.id,
  automation_id: run.automationId,
  contact_id: run.contactId,
  status,
  ...(error ? { error } : {}),
  created_at: run.createdAt.toISOString(),
});

/**
 * The run engine: enrols contacts from sent events (one run per enabled automation whose active
 * version's trigger names the event, pinned to that version), and advances due runs step by
 * step under a lease. Every transition is one committed step row plus the run's next step,
 * wake time and status; a delay parks the run (wake_at) and holds no worker.
 */
export class AutomationRunService {
  private counter = 0;
  private readonly owner: string;

  constructor(private readonly deps: AutomationRunDeps) {
    this.owner = deps.owner ?? `runs-${newId()}`;
  }

  private token(): string {
    return `${this.owner}:${++this.counter}`;
  }

  /** One scheduler tick: enrol what was sent, then advance what is due, within `budgetMs`. */
  async tick(budgetMs = 240_000): Promise<Record<string, number>> {
    const started = Date.now();
    let enrolled = 0;
    for (;;) {
      const batch = await this.enrol();
      enrolled += batch.runs;
      if (batch.occurrences < BATCH || Date.now() - started > budgetMs / 2) break;
    }
    let advanced = 0;
    for (;;) {
      const batch = await this.advance();
      advanced += batch;
      if (batch < BATCH || Date.now() - started > budgetMs) break;
    }
    return { enrolled, advanced };
  }

  /** Claims a batch of unprocessed occurrences and enrols their contacts, in one transaction. */
  async enrol(): Promise<{ occurrences: number; runs: number }> {
    const now = this.deps.clock.now();
    const occurrences = await new EventOccurrenceRepository(this.deps.knex).claim(
      this.token(),
      now,
      new Date(now.getTime() + (this.deps.leaseMs ?? 120_000)),
      BATCH,
    );
    if (occurrences.length === 0) return { occurrences: 0, runs: 0 };
    const automationsOf = new Map<string, Array<{ automation: Automation; version: AutomationVersion }>>();
    for (const teamId of new Set(occurrences.map((o) => o.teamId)))
      automationsOf.set(
        teamId,
        (await new AutomationRepository(this.deps.knex).allWithActiveVersion(teamId)).filter(
          ({ automation }) => automation.status === 'enabled',
        ),
      );
    const living = await this.livingContacts(occurrences);
    const runs: AutomationRun[] = [];
    const triggers = new Map<string, string>();
    for (const occurrence of occurrences) {
      if (!living.has(occurrence.contactId)) continue; // erased since the send: the event is dropped
      for (const { automation, version } of automationsOf.get(occurrence.teamId) ?? []) {
        const trigger = version.steps.find((s) => s.type === 'trigger');
        if (!trigger || trigger.config.event_name !== occurrence.eventName) continue;
        const run: AutomationRun = {
          id: newId(),
          teamId: occurrence.teamId,
          automationId: automation.id,
          versionId: version.id,
          contactId: occurrence.contactId,
          occurrenceId: occurrence.id,
          status: 'running',
          nextStepKey: successor(version, trigger.key),
          wakeAt: now,
          error: null,
          createdAt: now,
          updatedAt: now,
          endedAt: null,
        };
        runs.push(run);
        triggers.set(run.id, trigger.key);
      }
    }
    let created = 0;
    await this.deps.knex.transaction(async (trx) => {
      const repository = new AutomationRunRepository(trx);
      const inserted = new Set(await repository.insertIgnoringDuplicates(runs));
      const fresh = runs.filter((run) => inserted.has(run.id));
      created = fresh.length;
      for (const run of fresh)
        await repository.putStep({
          runId: run.id,
          stepKey: triggers.get(run.id)!,
          status: 'completed',
          startedAt: now,
          endedAt: now,
          error: null,
          emailId: null,
        });
      if (fresh.length > 0)
        await this.deps.events.recordMany(
          trx,
          fresh.map((run) => ({
            teamId: run.teamId,
            type: 'automation.run.started' as EventType,
            data: runEventData(run, 'running'),
          })),
        );
      await new EventOccurrenceRepository(trx).markProcessed(
        occurrences.map((o) => o.id),
        now,
      );
    });
    return { occurrences: occurrences.length, runs: created };
  }

  private async livingContacts(occurrences: StoredOccurrence[]): Promise<Set<string>> {
    const ids = [...new Set(occurrences.map((o) => o.contactId))];
    const rows = (await this.deps.knex('contacts').whereIn('id', ids).select('id')) as Array<{ id: string }>;
    return new Set(rows.map((r) => r.id));
  }

  /** Claims a batch of due runs and moves each as far as it goes now; returns how many were claimed. */
  async advance(): Promise<number> {
    const now = this.deps.clock.now();
    const runs = await new AutomationRunRepository(this.deps.knex).claimDue(
      this.token(),
      now,
      new Date(now.getTime() + (this.deps.leaseMs ?? 120_000)),
      BATCH,
    );
    for (const run of runs) {
      try {
        await this.drive(run);
      } catch (err) {
        // Not a step's own failure (the database went away): the lease runs out and the run is retried.
        console.error(`automation run ${run.id}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    return runs.length;
  }

  private async drive(claimed: AutomationRun): Promise<void> {
    const version = await new AutomationRepository(this.deps.knex).findVersion(claimed.versionId);
    let run = claimed;
    for (let i = 0; i < MAX_STEPS_PER_CLAIM; i++) {
      const now = this.deps.clock.now();
      const key = run.nextStepKey;
      const step = key === null ? undefined : version?.steps.find((s) => s.key === key);
      if (key === null) {
        await this.finish(run, 'completed', null, now);
        return;
      }
      if (!version || !step) {
        await this.finish(run, 'failed', `step ${key} is not in the run's version`, now);
        return;
      }
      const existing = await new AutomationRunRepository(this.deps.knex).findStep(run.id, key);
      const outcome = await this.execute(run, version, step, existing, now);
      if (outcome.kind === 'stop') return;
      if (outcome.kind === 'committed') {
        if (outcome.next === null) return;
        run = { ...run, nextStepKey: outcome.next, wakeAt: now, updatedAt: now };
        continue;
      }
      const startedAt = existing?.startedAt ?? now;
      let transition: Transition;
      if (outcome.kind === 'park') {
        transition = {
          run,
          step: {
            runId: run.id,
            stepKey: key,
            status: 'waiting',
            startedAt,
            endedAt: null,
            error: null,
            emailId: null,
          },
          status: 'running',
          nextStepKey: key,
          wakeAt: outcome.until,
          error: null,
          at: now,
        };
      } else if (outcome.kind === 'fail') {
        transition = {
          run,
          step: {
            runId: run.id,
            stepKey: key,
            status: 'failed',
            startedAt,
            endedAt: now,
            error: outcome.error,
            emailId: null,
          },
          status: 'failed',
          nextStepKey: null,
          wakeAt: null,
          error: outcome.error,
          at: now,
        };
      } else {
        transition = {
          run,
          step: {
            runId: run.id,
            stepKey: key,
            status: 'completed',
            startedAt,
            endedAt: now,
            error: null,
            emailId: existing?.emailId ?? null,
          },
          status: outcome.next === null ? 'completed' : 'running',
          nextStepKey: outcome.next,
          wakeAt: outcome.next === null ? null : now,
          error: null,
          at: now,
        };
      }
      const still = await this.deps.knex.transaction((trx) => this.commit(trx, transition));
      if (!still) return;
      crashPoint('automation.after-step-commit');
      if (transition.status !== 'running' || outcome.kind === 'park') return;
      run = { ...run, nextStepKey: transition.nextStepKey, wakeAt: transition.wakeAt, updatedAt: now };
    }
    // A long chain yields: the rest goes at the next claim (wake_at is now, so it is due).
    await new AutomationRunRepository(this.deps.knex).update(
      run.id,
      { status: 'running', nextStepKey: run.nextStepKey, wakeAt: this.deps.clock.now() },
      this.deps.clock.now(),
    );
  }

  /**
   * Writes one transition: the step row, the run's next step, wake time and status, and the
   * run's end event. False when the run is no longer running (cancelled meanwhile): nothing written.
   */
  private async commit(trx: Knex.Transaction, t: Transition): Promise<boolean> {
    const repository = new AutomationRunRepository(trx);
    const current = await repository.find(t.run.id, { forUpdate: true });
    if (!current || current.status !== 'running') return false;
    await repository.putStep(t.step);
    // A run that goes straight on keeps its lease: the worker executes the next step at once.
    const goesOn = t.status === 'running' && t.wakeAt !== null && t.wakeAt.getTime() <= t.at.getTime();
    await repository.update(
      t.run.id,
      { status: t.status, nextStepKey: t.nextStepKey, wakeAt: t.wakeAt, error: t.error },
      t.at,
      { keepLease: goesOn },
    );
    if (t.status === 'completed' || t.status === 'failed')
      await this.deps.events.recordMany(trx, [
        {
          teamId: t.run.teamId,
          type: `automation.run.${t.status}` as EventType,
          data: runEventData(t.run, t.status, t.error),
        },
      ]);
    return true;
  }

  /** Ends a run without a step of its own (no next step left, or its version lost the step). */
  private async finish(run: AutomationRun, status: 'completed' | 'failed', error: string | null, at: Date) {
    await this.deps.knex.transaction(async (trx) => {
      const repository = new AutomationRunRepository(trx);
      const current = await repository.find(run.id, { forUpdate: true });
      if (!current || current.status !== 'running') return;
      await repository.update(run.id, { status, nextStepKey: null, wakeAt: null, error }, at);
      await this.deps.events.recordMany(trx, [
        {
          teamId: run.teamId,
          type: `automation.run.${status}` as EventType,
          data: runEventData(run, status, error),
        },
      ]);
    });
  }

  private async execute(
    run: AutomationRun,
    version: AutomationVersion,
    step: AutomationStep,
    existing: AutomationRunStep | undefined,
    now: Date,
  ): Promise<Outcome> {
    const next = () => successor(version, step.key);
    try {
      await this.deps.contacts.find(run.teamId, run.contactId);
    } catch (err) {
      if (err instanceof NotFoundError) return { kind: 'fail', error: 'the contact no longer exists' };
      throw err;
    }
    try {
      switch (step.type) {
        case 'trigger':
          return { kind: 'next', next: next() };
        case 'delay': {
          if (existing?.status === 'waiting') return { kind: 'next', next: next() };
          const until = delayUntil(step.config, now);
          if (!until) return { kind: 'fail', error: 'the delay has neither a valid duration nor until' };
          return until.getTime() > now.getTime() ? { kind: 'park', until } : { kind: 'next', next: next() };
        }
        case 'condition': {
          const ctx = await this.deps.catalog(run.teamId);
          const check = checkCondition(step.config, ctx);
          if (!check.ok) return { kind: 'fail', error: `the condition is no longer valid: ${check.problems[0]}` };
          const query = this.deps.knex('contacts as c').where('c.id', run.contactId).where('c.team_id', run.teamId);
          applySegmentFilter(query, check.filter, ctx, 'c');
          const met = Boolean(await query.first('c.id'));
          return { kind: 'next', next: successor(version, step.key, met ? 'condition_met' : 'condition_not_met') };
        }
        case 'send_email':
          if (existing?.emailId) return { kind: 'next', next: next() };
          return await this.sendEmail(run, version, step, now);
        case 'contact_update': {
          const c = step.config;
          await this.deps.contacts.update(
            run.teamId,
            run.contactId,
            {
              ...(c.first_name !== undefined ? { first_name: c.first_name as string } : {}),
              ...(c.last_name !== undefined ? { last_name: c.last_name as string } : {}),
              ...(c.unsubscribed !== undefined ? { unsubscribed: c.unsubscribed as boolean } : {}),
              ...(c.properties !== undefined
                ? { properties: c.properties as Record<string, string | number | null> }
                : {}),
            },
            { source: 'automation' },
          );
          return { kind: 'next', next: next() };
        }
        case 'add_to_segment':
          await this.deps.contacts.addToSegment(run.teamId, run.contactId, String(step.config.segment_id));
          return { kind: 'next', next: next() };
        case 'topic_update':
          await this.deps.contacts.setTopics(
            run.teamId,
            run.contactId,
            [{ id: String(step.config.topic_id), subscription: step.config.subscription as 'opt_in' | 'opt_out' }],
            { source: 'automation' },
          );
          return { kind: 'next', next: next() };
      }
    } catch (err) {
      if (err instanceof AppError) return { kind: 'fail', error: err.message };
      throw err;
    }
  }

  /**
   * The email goes through the ordinary acceptance path; the step row naming it and the run's
   * move to the next step commit in the email's own unit of work, so a retry never sends twice.
   */
  private async sendEmail(
    run: AutomationRun,
    version: AutomationVersion,
    step: AutomationStep,
    now: Date,
  ): Promise<Outcome> {
    const c = step.config;
    const contact = await this.deps.contacts.find(run.teamId, run.contactId);
    const parsed = sendEmailSchema.safeParse({
      to: [contact.email],
      template: c.template,
      ...(c.subject ? { subject: c.subject } : {}),
      ...(c.from ? { from: c.from } : {}),
      ...(c.reply_to ? { reply_to: c.reply_to } : {}),
      ...(c.topic_id ? { topic_id: c.topic_id } : {}),
    });
    if (!parsed.success)
      return { kind: 'fail', error: `the email is not valid: ${parsed.error.issues[0]?.message ?? 'invalid'}` };
    const team = await this.deps.teams.get(run.teamId);
    const next = successor(version, step.key);
    const unit: UnitOfWork = this.deps.units.begin();
    const email = await this.deps.emails.acceptForAutomation(team, parsed.data, unit);
    const transition: Transition = {
      run,
      step: {
        runId: run.id,
        stepKey: step.key,
        status: 'completed',
        startedAt: now,
        endedAt: now,
        error: null,
        emailId: email.id,
      },
      status: next === null ? 'completed' : 'running',
      nextStepKey: next,
      wakeAt: next === null ? null : now,
      error: null,
      at: now,
    };
    unit.write('automation_run_transitions', transition, async (trx, transitions: Transition[]) => {
      // A run cancelled meanwhile: the email is rolled back with it (a failed item fails alone).
      for (const t of transitions) if (!(await this.commit(trx, t))) throw new RunNotRunning(t.run.id);
    });
    crashPoint('automation.before-send-commit');
    try {
      await unit.commit();
    } catch (err) {
      if (err instanceof RunNotRunning) return { kind: 'stop' };
      throw err;
    }
    crashPoint('automation.after-send-commit');
    return { kind: 'committed', next };
  }

  /** Every live run of the automation becomes cancelled, in the caller's transaction. */
  async cancelLiveRuns(trx: Knex.Transaction, automationId: string): Promise<void> {
    await new AutomationRunRepository(trx).cancelLive(automationId, this.deps.clock.now());
  }

  /** The runs of an automation (the caller has checked it is the team's), newest first. */
  async list(automationId: string, query: PageQuery & { status?: string | undefined }) {
    return new AutomationRunRepository(this.deps.knex).list(automationId, {
      ...query,
      statuses: parseStatuses(query.status),
    });
  }

  /** One run with its steps in graph order. */
  async get(automationId: string, runId: string) {
    const run = isUuid(runId)
      ? await new AutomationRunRepository(this.deps.knex).findOfAutomation(automationId, runId.toLowerCase())
      : undefined;
    if (!run) throw new NotFoundError('Automation run not found');
    const version = await new AutomationRepository(this.deps.knex).findVersion(run.versionId);
    const rows = new Map(
      (await new AutomationRunRepository(this.deps.knex).steps(run.id)).map((row) => [row.stepKey, row]),
    );
    const steps = version ? stepsInGraphOrder(version).map((step) => ({ step, row: rows.get(step.key) })) : [];
    return { run, steps };
  }
}

/** The list's `status`: a comma-separated subset of the run statuses; another member is 422 naming it. */
export function parseStatuses(value: string | undefined): RunStatus[] | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const members = value.split(',').map((m) => m.trim());
  for (const member of members)
    if (!(RUN_STATUSES as readonly string[]).includes(member))
      throw new InvalidParameterError(`status: "${member}" is not one of ${RUN_STATUSES.join(', ')}`, {
        errors: [{ path: 'status', message: `"${member}" is not a run status` }],
      });
  return [...new Set(members)] as RunStatus[];
}

/** When a delay step ends, from the moment the run reached it (as graph-validation reads the config). */
function delayUntil(config: Record<string, unknown>, from: Date): Date | undefined {
  if (typeof config.until === 'string') return parseScheduledAt(config.until, from);
  if (typeof config.duration !== 'string') return undefined;
  const phrase = config.duration.trim().toLowerCase().replace(/\s+/g, ' ');
  return parseScheduledAt(phrase.startsWith('in ') ? phrase : `in ${phrase}`, from);
}
