import type { Knex } from 'knex';
import type { EventLog } from '../../events/log/event-log.js';
import type { EventType } from '../../events/log/event.types.js';
import { AutomationRunRepository } from './automation-run.repository.js';
import type { AutomationRun, AutomationRunStep, RunStatus } from './automation-run.types.js';

/** One committed move of a run: its step row, and the run's next step, wake time and status. */
export type Transition = {
  run: AutomationRun;
  step: AutomationRunStep;
  status: RunStatus;
  nextStepKey: string | null;
  wakeAt: Date | null;
  error: string | null;
  at: Date;
};

/** The data of automation.run.* events (documented in the README's webhook section). */
export const runEventData = (run: AutomationRun, status: RunStatus, error: string | null = null) => ({
  object: 'automation_run',
  id: run.id,
  automation_id: run.automationId,
  contact_id: run.contactId,
  status,
  ...(error ? { error } : {}),
  created_at: run.createdAt.toISOString(),
});

/** The transition that ends a step and moves to `next` (the run completes when there is none). */
export function stepDone(
  run: AutomationRun,
  stepKey: string,
  startedAt: Date,
  next: string | null,
  at: Date,
  extra: { emailId?: string | null; skipped?: string } = {},
): Transition {
  return {
    run,
    step: {
      runId: run.id,
      stepKey,
      status: extra.skipped ? 'skipped' : 'completed',
      startedAt,
      endedAt: at,
      error: extra.skipped ?? null,
      emailId: extra.emailId ?? null,
    },
    status: next === null ? 'completed' : 'running',
    nextStepKey: next,
    wakeAt: next === null ? null : at,
    error: null,
    at,
  };
}

/** The transition that parks a run on its delay step until `until`. */
export function stepParked(run: AutomationRun, stepKey: string, startedAt: Date, until: Date, at: Date): Transition {
  return {
    run,
    step: { runId: run.id, stepKey, status: 'waiting', startedAt, endedAt: null, error: null, emailId: null },
    status: 'running',
    nextStepKey: stepKey,
    wakeAt: until,
    error: null,
    at,
  };
}

/** The transition that fails the step and with it the run. */
export function stepFailed(run: AutomationRun, stepKey: string, startedAt: Date, error: string, at: Date): Transition {
  return {
    run,
    step: { runId: run.id, stepKey, status: 'failed', startedAt, endedAt: at, error, emailId: null },
    status: 'failed',
    nextStepKey: null,
    wakeAt: null,
    error,
    at,
  };
}

/**
 * Writes runs' state changes in the caller's transaction, each with its end event when the run
 * ends: the one place a run moves.
 */
export class RunTransitions {
  constructor(private readonly events: Pick<EventLog, 'recordMany'>) {}

  /**
   * Locks the run; undefined when it is no longer running (cancelled meanwhile) or, for a run a
   * worker claimed, when its claim ran out and another worker holds it now: a stalled worker
   * must not commit a step the new holder executes too (an email twice).
   */
  async lockRunning(trx: Knex.Transaction, run: AutomationRun): Promise<AutomationRun | undefined> {
    const current = await new AutomationRunRepository(trx).find(run.id, { forUpdate: true });
    if (!current || current.status !== 'running') return undefined;
    if (run.leaseOwner !== null && current.leaseOwner !== run.leaseOwner) return undefined;
    return current;
  }

  /** Writes one transition of a run the caller has locked (lockRunning). */
  async write(trx: Knex.Transaction, t: Transition): Promise<void> {
    const repository = new AutomationRunRepository(trx);
    await repository.putStep(t.step);
    // A run that goes straight on keeps its lease: the worker executes the next step at once.
    const goesOn = t.status === 'running' && t.wakeAt !== null && t.wakeAt.getTime() <= t.at.getTime();
    await repository.update(
      t.run.id,
      { status: t.status, nextStepKey: t.nextStepKey, wakeAt: t.wakeAt, error: t.error },
      t.at,
      { keepLease: goesOn },
    );
    if (t.status !== 'running') await this.ended(trx, t.run, t.status, t.error);
  }

  /** Locks and writes; false when the run is no longer running (nothing written). */
  async commit(trx: Knex.Transaction, t: Transition): Promise<boolean> {
    if (!(await this.lockRunning(trx, t.run))) return false;
    await this.write(trx, t);
    return true;
  }

  /** Ends a run without a step of its own (no next step left, its version lost the step, attempts used up). */
  async finish(
    trx: Knex.Transaction,
    run: AutomationRun,
    status: 'completed' | 'failed',
    error: string | null,
    at: Date,
  ): Promise<void> {
    if (!(await this.lockRunning(trx, run))) return;
    await new AutomationRunRepository(trx).update(run.id, { status, nextStepKey: null, wakeAt: null, error }, at);
    await this.ended(trx, run, status, error);
  }

  private async ended(trx: Knex.Transaction, run: AutomationRun, status: RunStatus, error: string | null) {
    if (status !== 'completed' && status !== 'failed') return;
    await this.events.recordMany(trx, [
      { teamId: run.teamId, type: `automation.run.${status}` as EventType, data: runEventData(run, status, error) },
    ]);
  }
}
