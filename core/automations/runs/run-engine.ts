import type { Knex } from 'knex';
import type { Clock } from '../../../lib/clock.js';
import { crashPoint } from '../../../lib/crash-point.js';
import type { SegmentFilterContext } from '../../audience/segments/segment-filter.js';
import { AutomationRepository } from '../automation.repository.js';
import type { ContactProperty } from '../../audience/properties/contact-property.types.js';
import type { EventLog } from '../../events/log/event-log.js';
import { AutomationRunRepository } from './automation-run.repository.js';
import { BatchReads, RunBatch } from './run-batch.js';
import type { AutomationRun } from './automation-run.types.js';
import { successor } from './graph-walk.js';
import { stepDone, stepFailed, stepParked, type RunTransitions, type Transition } from './run-transitions.js';
import type { SendEmailStep } from './send-email-step.js';
import { refusalMessage, type Outcome, type StepAtHand, type StepExecutor } from './step-executor.js';

export type RunEngineDeps = {
  knex: Knex;
  clock: Clock;
  transitions: RunTransitions;
  executor: StepExecutor;
  send: SendEmailStep;
  /** The team's declared properties and live topics (condition evaluation). */
  catalog: (teamId: string) => Promise<SegmentFilterContext>;
  /** The team's declared properties, keyed lower-case (a batched contact_update's writes). */
  properties: (teamId: string, within: Knex) => Promise<Map<string, ContactProperty>>;
  /** The event log the batch records its events in (one recordMany per pass). */
  events: Pick<EventLog, 'recordMany'>;
  leaseMs: number;
  /** Unexpected errors of one step before the run fails with it. */
  maxStepAttempts: number;
  /** Runs of a claimed batch advanced at once where a batch goes run by run (sends, the fallback). */
  concurrency: number;
  token: () => string;
};

/**
 * Runs claimed per batch: one pass is one transaction over all of them, so more runs share its
 * commit and its statements; 500 keeps a pass's locks and its IN lists modest.
 */
export const ADVANCE_BATCH = 500;
/** Steps one run may take in one claim before it yields (a graph has at most 150 steps). */
const MAX_STEPS_PER_CLAIM = 200;

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A step's refusal, thrown to roll back its transaction before the failure is written. */
class StepRefused extends Error {}

/** The wait before retrying a step that threw: 10 s, 40 s, 90 s, ... at most 10 minutes. */
const retryDelayMs = (attempts: number) => Math.min(10_000 * attempts * attempts, 600_000);

/**
 * Advances due runs: claims a batch under a lease and moves each as far as it goes now, one
 * committed transition per step (StepExecutor and SendEmailStep decide; RunTransitions
 * writes). A delay parks the run (wake_at) and releases it; a refusal fails the run; an
 * unexpected error is retried later and fails the run after `maxStepAttempts`.
 */
export class RunEngine {
  private readonly batch: RunBatch;

  constructor(private readonly deps: RunEngineDeps) {
    this.batch = new RunBatch({
      knex: deps.knex,
      clock: deps.clock,
      events: deps.events,
      executor: deps.executor,
      catalog: deps.catalog,
      properties: deps.properties,
    });
  }

  /**
   * Claims a batch of due runs and moves them on; returns how many were claimed. The batch goes
   * in passes: RunBatch advances every run it can in one transaction until each stops at a
   * send_email, a delay or its end; the sends go through the email's unit of work, run by run
   * (group-committed with each other); the runs that go on after their send make the next pass.
   * A pass that throws is rolled back whole and its runs are advanced one by one (drive), the
   * way every run went before batches: one failing run never holds the others back.
   */
  async advance(): Promise<number> {
    const now = this.deps.clock.now();
    const runs = await new AutomationRunRepository(this.deps.knex).claimDue(
      this.deps.token(),
      now,
      new Date(now.getTime() + this.deps.leaseMs),
      ADVANCE_BATCH,
    );
    const reads = new BatchReads();
    let active = runs;
    for (let pass = 0; active.length > 0; pass++) {
      if (pass >= MAX_STEPS_PER_CLAIM) {
        // A chain of sends longer than any graph: the rest goes at the next claim.
        await this.inTurn(active, (run) => this.release(run));
        break;
      }
      let result;
      try {
        result = await this.batch.pass(active, reads, MAX_STEPS_PER_CLAIM);
      } catch (err) {
        console.error(
          `automation batch of ${active.length} runs: ${err instanceof Error ? err.message : String(err)}; advancing them one by one`,
        );
        await this.inTurn(active, (run) => this.drive(run));
        break;
      }
      if (result.steps > 0) crashPoint('automation.after-step-commit');
      // better-sqlite3 answers synchronously: let the process's timers and sockets run.
      await yieldToEventLoop();
      active = await this.sends(result.atSend, reads);
    }
    return runs.length;
  }

  /** `concurrency` drivers take the runs in turn; an error of one run is that run's (afterError). */
  private async inTurn(runs: AutomationRun[], work: (run: AutomationRun) => Promise<void>): Promise<void> {
    let next = 0;
    const driver = async () => {
      while (next < runs.length) {
        const run = runs[next++]!;
        try {
          await work(run);
        } catch (err) {
          await this.afterError(run, err);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.deps.concurrency, runs.length) }, driver));
  }

  /** The send_email steps the runs stopped at; returns the runs that go straight on after theirs. */
  private async sends(runs: AutomationRun[], reads: BatchReads): Promise<AutomationRun[]> {
    const onward: AutomationRun[] = [];
    await this.inTurn(runs, async (run) => {
      const version = reads.versions.get(run.versionId);
      const step = version?.steps.find((s) => s.key === run.nextStepKey);
      if (!version || !step) return;
      const now = this.deps.clock.now();
      const existing = await new AutomationRunRepository(this.deps.knex).findStep(run.id, step.key);
      const moved = await this.send({ run, version, step, existing, now });
      await yieldToEventLoop();
      if (!moved || moved.status !== 'running' || moved.wakeAt === null || moved.wakeAt > now) return;
      onward.push({ ...run, nextStepKey: moved.nextStepKey, wakeAt: moved.wakeAt, updatedAt: now, attempts: 0 });
    });
    return onward;
  }

  /** A run still held that this claim will not move further: due now, released. */
  private async release(run: AutomationRun): Promise<void> {
    const { knex, clock, transitions } = this.deps;
    await knex.transaction(async (trx) => {
      if (!(await transitions.lockRunning(trx, run))) return;
      await new AutomationRunRepository(trx).update(
        run.id,
        { status: 'running', nextStepKey: run.nextStepKey, wakeAt: clock.now() },
        clock.now(),
      );
    });
  }

  private async drive(claimed: AutomationRun): Promise<void> {
    const { knex, clock, transitions } = this.deps;
    const version = await new AutomationRepository(knex).findVersion(claimed.versionId);
    let run = claimed;
    for (let i = 0; i < MAX_STEPS_PER_CLAIM; i++) {
      const now = clock.now();
      const key = run.nextStepKey;
      if (key === null) {
        await knex.transaction((trx) => transitions.finish(trx, run, 'completed', null, now));
        return;
      }
      const step = version?.steps.find((s) => s.key === key);
      if (!version || !step) {
        await knex.transaction((trx) =>
          transitions.finish(trx, run, 'failed', `step ${key} is not in the run's version`, now),
        );
        return;
      }
      const existing = await new AutomationRunRepository(knex).findStep(run.id, key);
      const at: StepAtHand = {
        run,
        version,
        step,
        existing,
        now,
        ...(step.type === 'condition' ? { catalog: await this.deps.catalog(run.teamId) } : {}),
      };
      const moved = step.type === 'send_email' ? await this.send(at) : await this.step(at);
      // better-sqlite3 answers synchronously: without this a long batch never lets the process's
      // timers and sockets (the other jobs, the webhook worker) run.
      await yieldToEventLoop();
      if (!moved || moved.status !== 'running' || moved.wakeAt === null || moved.wakeAt > now) return;
      run = { ...run, nextStepKey: moved.nextStepKey, wakeAt: moved.wakeAt, updatedAt: now, attempts: 0 };
    }
    // A long chain yields: the rest goes at the next claim (wake_at is now, so it is due).
    await this.release(run);
  }

  /** Any step but send_email, in one transaction with its transition; undefined when the run was cancelled. */
  private async step(at: StepAtHand): Promise<Transition | undefined> {
    const { knex, transitions, executor } = this.deps;
    try {
      const moved = await knex.transaction(async (trx) => {
        if (!(await transitions.lockRunning(trx, at.run))) return undefined;
        const outcome = await executor.execute(trx, at);
        if (outcome.kind === 'fail') throw new StepRefused(outcome.error);
        const transition = this.transitionOf(at, outcome);
        await transitions.write(trx, transition);
        return transition;
      });
      if (moved) crashPoint('automation.after-step-commit');
      return moved;
    } catch (err) {
      const refusal = err instanceof StepRefused ? err.message : refusalMessage(err);
      if (refusal === undefined) throw err;
      return this.fail(at, refusal);
    }
  }

  private async send(at: StepAtHand): Promise<Transition | undefined> {
    // The email committed with this row before: the run only has to move on.
    if (at.existing?.emailId) {
      const transition = stepDone(
        at.run,
        at.step.key,
        at.existing.startedAt,
        successor(at.version, at.step.key),
        at.now,
        {
          emailId: at.existing.emailId,
        },
      );
      return (await this.deps.knex.transaction((trx) => this.deps.transitions.commit(trx, transition)))
        ? transition
        : undefined;
    }
    let result;
    try {
      result = await this.deps.send.run(at);
    } catch (err) {
      const refusal = refusalMessage(err);
      if (refusal === undefined) throw err;
      return this.fail(at, refusal);
    }
    if (result.kind === 'stop') return undefined;
    if (result.kind === 'fail') return this.fail(at, result.error);
    return stepDone(at.run, at.step.key, at.now, result.next, at.now);
  }

  private transitionOf(at: StepAtHand, outcome: Exclude<Outcome, { kind: 'fail' }>): Transition {
    const startedAt = at.existing?.startedAt ?? at.now;
    return outcome.kind === 'park'
      ? stepParked(at.run, at.step.key, startedAt, outcome.until, at.now)
      : stepDone(at.run, at.step.key, startedAt, outcome.next, at.now);
  }

  private async fail(at: StepAtHand, error: string): Promise<Transition | undefined> {
    const transition = stepFailed(at.run, at.step.key, at.existing?.startedAt ?? at.now, error, at.now);
    return (await this.deps.knex.transaction((trx) => this.deps.transitions.commit(trx, transition)))
      ? transition
      : undefined;
  }

  /**
   * Not a step's refusal (the database went away, a bug): retried after a growing wait, and
   * after maxStepAttempts the run fails with the error. If even this cannot be written, the
   * lease runs out and the run is taken again.
   */
  private async afterError(run: AutomationRun, err: unknown): Promise<void> {
    const message = err instanceof Error ? err.message : String(err);
    console.error(`automation run ${run.id}: ${message}`);
    try {
      const attempts = run.attempts + 1;
      const now = this.deps.clock.now();
      const error = `step ${run.nextStepKey ?? '(end)'} failed ${attempts} time${attempts > 1 ? 's' : ''}: ${message.slice(0, 500)}`;
      if (attempts >= this.deps.maxStepAttempts)
        await this.deps.knex.transaction((trx) => this.deps.transitions.finish(trx, run, 'failed', error, now));
      else
        await new AutomationRunRepository(this.deps.knex).deferAfterError(
          run.id,
          run.leaseOwner,
          attempts,
          error,
          new Date(now.getTime() + retryDelayMs(attempts)),
          now,
        );
    } catch {
      // The lease runs out and another claim retries the run.
    }
  }
}
