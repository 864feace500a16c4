import type { Knex } from 'knex';
import type { Clock } from '../../../lib/clock.js';
import type { Contact } from '../../audience/contacts/contact.types.js';
import type { ContactProperty } from '../../audience/properties/contact-property.types.js';
import { applySegmentFilter, type SegmentFilterContext } from '../../audience/segments/segment-filter.js';
import type { EventLog } from '../../events/log/event-log.js';
import type { EventType } from '../../events/log/event.types.js';
import { AutomationRepository } from '../automation.repository.js';
import type { AutomationStep, AutomationVersion } from '../automation.types.js';
import { checkCondition } from '../condition-rules.js';
import { AutomationRunRepository } from './automation-run.repository.js';
import type { AutomationRun, AutomationRunStep, RunStatus } from './automation-run.types.js';
import { contactsById, updateContactsAlike, type BatchContactChange } from './batch-contact-updates.js';
import { delayUntil, successor } from './graph-walk.js';
import { runEventData, stepDone, stepFailed, stepParked, type Transition } from './run-transitions.js';
import type { Outcome, StepExecutor } from './step-executor.js';

export type RunBatchDeps = {
  knex: Knex;
  clock: Clock;
  events: Pick<EventLog, 'recordMany'>;
  executor: StepExecutor;
  /** The team's declared properties and live topics (condition evaluation). */
  catalog: (teamId: string) => Promise<SegmentFilterContext>;
  /** The team's declared properties, keyed lower-case (contact_update's property writes). */
  properties: (teamId: string, within: Knex) => Promise<Map<string, ContactProperty>>;
};

/** What one batch pass left: runs at a send_email step (still held), and how many steps it wrote. */
export type BatchPass = { atSend: AutomationRun[]; steps: number };

/** Look-ups a claimed batch reads once, however many passes and runs it takes. */
export class BatchReads {
  readonly versions = new Map<string, AutomationVersion | undefined>();
  readonly catalogs = new Map<string, SegmentFilterContext>();
}

type EventEntry = { teamId: string; type: EventType; data: Record<string, unknown> };
type Final = {
  status: RunStatus;
  nextStepKey: string | null;
  wakeAt: Date | null;
  error: string | null;
  keep: boolean;
};

const IN_CHUNK = 500;
const stepId = (runId: string, key: string) => `${runId}\u0000${key}`;

/**
 * Advances the runs of a claimed batch in ONE transaction, in waves (every run one step per
 * wave), with what a step reads and writes as multi-row statements: the runs locked in one
 * SELECT ... FOR UPDATE, their step rows read once, the contacts of a wave in one query, a
 * condition shared by many runs in one query, a contact_update shared by many contacts in a
 * few (batch-contact-updates.ts), and at the end the step rows upserted, the runs moved by one
 * UPDATE per distinct outcome and every event in one recordMany (one webhook endpoint look-up).
 * The version and the team's catalog are read once per claimed batch (BatchReads).
 *
 * A run stops at a send_email step (the email's own unit of work sends it; the caller does, after
 * this commits), at a delay, at its end, or after `maxWaves`. Steps other than contact_update
 * without `unsubscribed`, condition, trigger and delay go through StepExecutor one run at a
 * time, still inside this transaction. Anything thrown rolls the whole pass back: the caller
 * then advances the same runs one by one (RunEngine.drive), so one bad run costs its batch the
 * fast path once, never its progress.
 */
export class RunBatch {
  constructor(private readonly deps: RunBatchDeps) {}

  async pass(runs: AutomationRun[], reads: BatchReads, maxWaves: number): Promise<BatchPass> {
    const { knex } = this.deps;
    await this.readVersions(runs, reads);
    await this.readCatalogs(runs, reads);
    return knex.transaction(async (trx) => {
      const repository = new AutomationRunRepository(trx);
      const locked = await repository.lockMany(runs.map((r) => r.id));
      // A run cancelled meanwhile, or whose claim ran out and another worker holds: left alone.
      let active = runs.filter((run) => {
        const current = locked.get(run.id);
        return current?.status === 'running' && (run.leaseOwner === null || current.leaseOwner === run.leaseOwner);
      });
      const existing = new Map(
        (await repository.stepsOfRuns(active.map((r) => r.id))).map((s) => [stepId(s.runId, s.stepKey), s]),
      );
      const state: PassState = { steps: [], finals: new Map(), events: [], atSend: [], existing };
      for (let wave = 0; wave < maxWaves && active.length > 0; wave++) {
        active = await this.wave(trx, active, reads, state);
        // better-sqlite3 answers synchronously: let the process's timers run between waves.
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      // Runs that still go on after maxWaves: due now, released, taken at the next claim.
      for (const run of active)
        state.finals.set(run.id, {
          status: 'running',
          nextStepKey: run.nextStepKey,
          wakeAt: this.deps.clock.now(),
          error: null,
          keep: false,
        });
      await this.write(trx, state);
      return { atSend: state.atSend, steps: state.steps.length };
    });
  }

  private async readVersions(runs: AutomationRun[], reads: BatchReads): Promise<void> {
    const repository = new AutomationRepository(this.deps.knex);
    for (const id of new Set(runs.map((r) => r.versionId)))
      if (!reads.versions.has(id)) reads.versions.set(id, await repository.findVersion(id));
  }

  /**
   * The catalogs of the teams whose runs may meet a condition, read before the transaction opens:
   * they come through the audience services' own connection, and on SQLite the pool's one
   * connection is the transaction's.
   */
  private async readCatalogs(runs: AutomationRun[], reads: BatchReads): Promise<void> {
    for (const run of runs)
      if (
        !reads.catalogs.has(run.teamId) &&
        reads.versions.get(run.versionId)?.steps.some((s) => s.type === 'condition')
      )
        reads.catalogs.set(run.teamId, await this.deps.catalog(run.teamId));
  }

  private catalog(teamId: string, reads: BatchReads): SegmentFilterContext {
    const catalog = reads.catalogs.get(teamId);
    if (!catalog) throw new Error(`the catalog of team ${teamId} was not read before the batch`);
    return catalog;
  }

  /** Every active run takes its next step; returns the runs that go straight on. */
  private async wave(
    trx: Knex.Transaction,
    active: AutomationRun[],
    reads: BatchReads,
    state: PassState,
  ): Promise<AutomationRun[]> {
    const now = this.deps.clock.now();
    const outcomes = new Map<string, Outcome>();
    const at = new Map<string, { version: AutomationVersion; step: AutomationStep }>();
    const contacts = await this.contactsOf(trx, active);
    // Runs at a shared condition or contact_update, grouped by team, version and step.
    const groups = new Map<string, AutomationRun[]>();
    for (const run of active) {
      const key = run.nextStepKey;
      const version = reads.versions.get(run.versionId);
      if (key === null) {
        this.end(state, run, 'completed', null);
        continue;
      }
      const step = version?.steps.find((s) => s.key === key);
      if (!version || !step) {
        this.end(state, run, 'failed', `step ${key} is not in the run's version`);
        continue;
      }
      at.set(run.id, { version, step });
      if (step.type === 'send_email') {
        state.atSend.push(run);
        continue;
      }
      if (!contacts.get(run.id)) {
        outcomes.set(run.id, { kind: 'fail', error: 'the contact no longer exists' });
        continue;
      }
      const shared =
        step.type === 'condition' || (step.type === 'contact_update' && step.config.unsubscribed === undefined);
      if (shared) {
        const group = `${run.teamId}\u0000${run.versionId}\u0000${key}`;
        groups.set(group, [...(groups.get(group) ?? []), run]);
      } else
        outcomes.set(run.id, await this.single(trx, run, version, step, state, now, this.catalogFor(step, run, reads)));
    }
    for (const group of groups.values()) {
      const { version, step } = at.get(group[0]!.id)!;
      const decided =
        step.type === 'condition'
          ? await this.condition(trx, group, version, step, this.catalog(group[0]!.teamId, reads))
          : await this.contactUpdate(trx, group, step, state, now);
      for (const [id, outcome] of decided) outcomes.set(id, outcome);
    }
    const next: AutomationRun[] = [];
    for (const run of active) {
      const outcome = outcomes.get(run.id);
      if (!outcome) continue;
      const { version, step } = at.get(run.id)!;
      const t = this.transition(run, version, step, outcome, state, now);
      state.steps.push(t.step);
      if (t.status === 'running' && t.wakeAt !== null && t.wakeAt <= now) {
        const moved = { ...run, nextStepKey: t.nextStepKey, wakeAt: t.wakeAt, updatedAt: now, attempts: 0 };
        // Until it stops, its row says where it is and that this worker holds it (as a send needs).
        state.finals.set(run.id, {
          status: 'running',
          nextStepKey: t.nextStepKey,
          wakeAt: now,
          error: null,
          keep: true,
        });
        next.push(moved);
      } else {
        state.finals.set(run.id, {
          status: t.status,
          nextStepKey: t.nextStepKey,
          wakeAt: t.wakeAt,
          error: t.error,
          keep: false,
        });
        if (t.status !== 'running') state.events.push(endEvent(run, t.status, t.error));
      }
    }
    return next;
  }

  private catalogFor(step: AutomationStep, run: AutomationRun, reads: BatchReads) {
    return step.type === 'condition' ? this.catalog(run.teamId, reads) : undefined;
  }

  /** The contacts of the wave's runs (one query per team), keyed by run id. */
  private async contactsOf(trx: Knex, runs: AutomationRun[]): Promise<Map<string, Contact>> {
    const byTeam = new Map<string, AutomationRun[]>();
    for (const run of runs) byTeam.set(run.teamId, [...(byTeam.get(run.teamId) ?? []), run]);
    const found = new Map<string, Contact>();
    for (const [teamId, teamRuns] of byTeam) {
      const contacts = await contactsById(
        trx,
        teamId,
        teamRuns.map((r) => r.contactId),
      );
      for (const run of teamRuns) {
        const contact = contacts.get(run.contactId);
        if (contact) found.set(run.id, contact);
      }
    }
    return found;
  }

  /** A step of one run through StepExecutor (trigger and delay decided here, without a read). */
  private async single(
    trx: Knex.Transaction,
    run: AutomationRun,
    version: AutomationVersion,
    step: AutomationStep,
    state: PassState,
    now: Date,
    catalog: SegmentFilterContext | undefined,
  ): Promise<Outcome> {
    const existing = state.existing.get(stepId(run.id, step.key));
    if (step.type === 'trigger') return { kind: 'next', next: successor(version, step.key) };
    if (step.type === 'delay') {
      if (existing?.status === 'waiting') return { kind: 'next', next: successor(version, step.key) };
      const until = delayUntil(step.config, now);
      if (!until) return { kind: 'fail', error: 'the delay has neither a valid duration nor until' };
      return until.getTime() > now.getTime()
        ? { kind: 'park', until }
        : { kind: 'next', next: successor(version, step.key) };
    }
    // A refusal (AppError) thrown here rolls the pass back: the caller redoes the batch run by run.
    return this.deps.executor.execute(trx, { run, version, step, existing, now, ...(catalog ? { catalog } : {}) });
  }

  /** One condition for many runs: one query returns the contacts that meet it. */
  private async condition(
    trx: Knex.Transaction,
    runs: AutomationRun[],
    version: AutomationVersion,
    step: AutomationStep,
    catalog: SegmentFilterContext,
  ): Promise<Map<string, Outcome>> {
    const check = checkCondition(step.config, catalog);
    if (!check.ok) {
      const error = `the condition is no longer valid: ${check.problems[0]}`;
      return new Map(runs.map((run) => [run.id, { kind: 'fail', error } as Outcome]));
    }
    const met = new Set<string>();
    const ids = [...new Set(runs.map((r) => r.contactId))];
    for (let i = 0; i < ids.length; i += IN_CHUNK) {
      const query = trx('contacts as c')
        .whereIn('c.id', ids.slice(i, i + IN_CHUNK))
        .where('c.team_id', runs[0]!.teamId);
      applySegmentFilter(query, check.filter, catalog, 'c');
      for (const id of (await query.pluck('c.id')) as string[]) met.add(id);
    }
    return new Map(
      runs.map((run) => [
        run.id,
        {
          kind: 'next',
          next: successor(version, step.key, met.has(run.contactId) ? 'condition_met' : 'condition_not_met'),
        } as Outcome,
      ]),
    );
  }

  /** One contact_update (without `unsubscribed`) for many runs' contacts. */
  private async contactUpdate(
    trx: Knex.Transaction,
    runs: AutomationRun[],
    step: AutomationStep,
    state: PassState,
    now: Date,
  ): Promise<Map<string, Outcome>> {
    const c = step.config;
    const change: BatchContactChange = {
      ...(c.first_name !== undefined ? { first_name: c.first_name as string } : {}),
      ...(c.last_name !== undefined ? { last_name: c.last_name as string } : {}),
      ...(c.properties !== undefined ? { properties: c.properties as Record<string, string | number | null> } : {}),
    };
    // Read now, not at the wave's start: a step earlier in this wave (another automation's
    // contact_update, a single step) may have renamed the contact, and this step's contact.updated
    // must not show that reverted. Two runs of one contact in the group: the contact once.
    const current = await contactsById(
      trx,
      runs[0]!.teamId,
      runs.map((run) => run.contactId),
    );
    const declared = await this.deps.properties(runs[0]!.teamId, trx);
    const result = await updateContactsAlike(trx, [...current.values()], change, declared, now);
    if (result.kind === 'done') state.events.push(...result.events);
    const outcome: Outcome =
      result.kind === 'refused' ? { kind: 'fail', error: result.error } : { kind: 'next', next: null };
    return new Map(runs.map((run) => [run.id, outcome]));
  }

  private transition(
    run: AutomationRun,
    version: AutomationVersion,
    step: AutomationStep,
    outcome: Outcome,
    state: PassState,
    now: Date,
  ): Transition {
    const startedAt = state.existing.get(stepId(run.id, step.key))?.startedAt ?? now;
    if (outcome.kind === 'fail') return stepFailed(run, step.key, startedAt, outcome.error, now);
    if (outcome.kind === 'park') return stepParked(run, step.key, startedAt, outcome.until, now);
    // contactUpdate decides for a group without the graph: the successor is the step's one edge.
    const next = step.type === 'contact_update' ? successor(version, step.key) : outcome.next;
    return stepDone(run, step.key, startedAt, next, now);
  }

  /** A run that ends without a step of its own (no next step, or its version lost the step). */
  private end(state: PassState, run: AutomationRun, status: 'completed' | 'failed', error: string | null) {
    state.finals.set(run.id, { status, nextStepKey: null, wakeAt: null, error, keep: false });
    state.events.push(endEvent(run, status, error));
  }

  /** The pass's writes: step rows, the runs' moves (one UPDATE per distinct move), the events. */
  private async write(trx: Knex.Transaction, state: PassState): Promise<void> {
    const repository = new AutomationRunRepository(trx);
    const now = this.deps.clock.now();
    // A run passes a step key once per pass (graphs have no cycles); the last row wins anyway.
    const rows = new Map<string, AutomationRunStep>(state.steps.map((s) => [stepId(s.runId, s.stepKey), s]));
    await repository.putSteps([...rows.values()]);
    const moves = new Map<string, { final: Final; ids: string[] }>();
    for (const [id, final] of state.finals) {
      const key = JSON.stringify([final.status, final.nextStepKey, final.wakeAt?.getTime(), final.error, final.keep]);
      const entry = moves.get(key) ?? { final, ids: [] };
      entry.ids.push(id);
      moves.set(key, entry);
    }
    for (const { final, ids } of moves.values())
      await repository.updateMany(
        ids,
        { status: final.status, nextStepKey: final.nextStepKey, wakeAt: final.wakeAt, error: final.error },
        now,
        { keepLease: final.keep },
      );
    if (state.events.length > 0) await this.deps.events.recordMany(trx, state.events);
  }
}

type PassState = {
  steps: AutomationRunStep[];
  finals: Map<string, Final>;
  events: EventEntry[];
  atSend: AutomationRun[];
  existing: Map<string, AutomationRunStep>;
};

const endEvent = (run: AutomationRun, status: RunStatus, error: string | null): EventEntry => ({
  teamId: run.teamId,
  type: `automation.run.${status}` as EventType,
  data: runEventData(run, status, error),
});
