import type { Knex } from 'knex';
import { claimRows } from '../../../db/claim.js';
import { readNullableTimestamp, readTimestamp, rowsPerInsert } from '../../../db/dialect.js';
import { paginateNewestFirst, type PageQuery } from '../../shared/pagination/list-query.js';
import {
  RUN_LIMIT_ERROR_PREFIX,
  type AutomationRun,
  type AutomationRunStep,
  type RunStatus,
  type RunStepStatus,
} from './automation-run.types.js';

const RUNS = 'automation_runs';
const STEPS = 'automation_run_steps';
/** Ids per IN (...) list: well under SQLite's bound-parameter limit. */
const IN_CHUNK = 500;

type Row = {
  id: string;
  team_id: string;
  automation_id: string;
  version_id: string;
  contact_id: string;
  occurrence_id: string;
  status: string;
  next_step_key: string | null;
  wake_at: unknown;
  error: string | null;
  attempts: unknown;
  lease_owner: string | null;
  created_at: unknown;
  updated_at: unknown;
  ended_at: unknown;
};

type StepRow = {
  run_id: string;
  step_key: string;
  status: string;
  started_at: unknown;
  ended_at: unknown;
  error: string | null;
  email_id: string | null;
};

const toRun = (row: Row): AutomationRun => ({
  id: row.id,
  teamId: row.team_id,
  automationId: row.automation_id,
  versionId: row.version_id,
  contactId: row.contact_id,
  occurrenceId: row.occurrence_id,
  status: row.status as RunStatus,
  nextStepKey: row.next_step_key,
  wakeAt: readNullableTimestamp(row.wake_at),
  error: row.error,
  attempts: Number(row.attempts ?? 0),
  leaseOwner: row.lease_owner,
  createdAt: readTimestamp(row.created_at),
  updatedAt: readTimestamp(row.updated_at),
  endedAt: readNullableTimestamp(row.ended_at),
});

const toStep = (row: StepRow): AutomationRunStep => ({
  runId: row.run_id,
  stepKey: row.step_key,
  status: row.status as RunStepStatus,
  startedAt: readTimestamp(row.started_at),
  endedAt: readNullableTimestamp(row.ended_at),
  error: row.error,
  emailId: row.email_id,
});

const toStepRow = (step: AutomationRunStep) => ({
  run_id: step.runId,
  step_key: step.stepKey,
  status: step.status,
  started_at: step.startedAt,
  ended_at: step.endedAt,
  error: step.error,
  email_id: step.emailId,
});

/** Runs and their step rows. Every method runs on the knex (or transaction) it was built on. */
export class AutomationRunRepository {
  constructor(private readonly knex: Knex) {}

  /**
   * New runs, in multi-row INSERTs; one already there for the same automation and occurrence is
   * left as it is. Returns the ids that went in (the dialects report ignored rows differently,
   * so they are read back).
   */
  async insertIgnoringDuplicates(runs: AutomationRun[]): Promise<string[]> {
    if (runs.length === 0) return [];
    const rows = runs.map((run) => ({
      id: run.id,
      team_id: run.teamId,
      automation_id: run.automationId,
      version_id: run.versionId,
      contact_id: run.contactId,
      occurrence_id: run.occurrenceId,
      status: run.status,
      next_step_key: run.nextStepKey,
      wake_at: run.wakeAt,
      error: run.error,
      created_at: run.createdAt,
      updated_at: run.updatedAt,
      ended_at: run.endedAt,
    }));
    const size = rowsPerInsert(this.knex, 13);
    for (let i = 0; i < rows.length; i += size)
      await this.knex(RUNS)
        .insert(rows.slice(i, i + size))
        .onConflict(['automation_id', 'occurrence_id'])
        .ignore();
    const inserted: string[] = [];
    for (let i = 0; i < runs.length; i += 500)
      inserted.push(
        ...((await this.knex(RUNS)
          .whereIn(
            'id',
            runs.slice(i, i + 500).map((r) => r.id),
          )
          .pluck('id')) as string[]),
      );
    return inserted;
  }

  /** Step rows of new runs (their trigger steps), in multi-row INSERTs. */
  async insertSteps(steps: AutomationRunStep[]): Promise<void> {
    const rows = steps.map(toStepRow);
    const size = rowsPerInsert(this.knex, 7);
    for (let i = 0; i < rows.length; i += size) await this.knex(STEPS).insert(rows.slice(i, i + size));
  }

  /** Claims due running runs, oldest due first, under a lease. */
  async claimDue(token: string, now: Date, leaseUntil: Date, limit: number): Promise<AutomationRun[]> {
    const ids = await claimRows(this.knex, {
      table: RUNS,
      where: (query) =>
        query
          .where({ status: 'running' })
          .where('wake_at', '<=', now)
          .where((free) => free.whereNull('lease_until').orWhere('lease_until', '<', now)),
      orderBy: 'wake_at',
      limit,
      tokenColumn: 'lease_owner',
      token,
      set: { lease_until: leaseUntil },
    });
    if (ids.length === 0) return [];
    const rows = (await this.knex(RUNS).whereIn('id', ids).orderBy('id', 'asc')) as Row[];
    return rows.map(toRun);
  }

  async find(id: string, options: { forUpdate?: boolean } = {}): Promise<AutomationRun | undefined> {
    const query = this.knex(RUNS).where({ id });
    if (options.forUpdate) query.forUpdate();
    const row = (await query.first()) as Row | undefined;
    return row ? toRun(row) : undefined;
  }

  async findOfAutomation(automationId: string, id: string): Promise<AutomationRun | undefined> {
    const row = (await this.knex(RUNS).where({ id, automation_id: automationId }).first()) as Row | undefined;
    return row ? toRun(row) : undefined;
  }

  /**
   * Moves a run on: the next step and when, or its end. The lease is released unless `keepLease`
   * (the worker goes straight on to the next step: no other worker may take the run meanwhile).
   */
  async update(id: string, changes: RunChanges, at: Date, options: { keepLease?: boolean } = {}): Promise<void> {
    await this.knex(RUNS)
      .where({ id })
      .update(runChanges(changes, at, options));
  }

  /**
   * An unexpected error of the run's current step: counted, and the run is due again at
   * `retryAt` (the lease released, so any worker may take it then).
   */
  async deferAfterError(
    id: string,
    lease: string | null,
    attempts: number,
    error: string,
    retryAt: Date,
    at: Date,
  ): Promise<void> {
    await this.knex(RUNS)
      .where({ id, status: 'running', lease_owner: lease })
      .update({ attempts, error, wake_at: retryAt, updated_at: at, lease_owner: null, lease_until: null });
  }

  /** Every live run of the automation becomes cancelled; returns how many. */
  async cancelLive(automationId: string, at: Date): Promise<number> {
    return this.knex(RUNS).where({ automation_id: automationId, status: 'running' }).update({
      status: 'cancelled',
      next_step_key: null,
      wake_at: null,
      updated_at: at,
      ended_at: at,
      lease_owner: null,
      lease_until: null,
    });
  }

  /**
   * Runs of a team created since `since`, less those refused at the monthly run limit (they
   * never started): what the limit counts and GET /usage reports.
   */
  async countStartedSince(teamId: string, since: Date): Promise<number> {
    const [row] = (await this.knex(RUNS)
      .where({ team_id: teamId })
      .where('created_at', '>=', since)
      .where((q) =>
        q.whereNot('status', 'failed').orWhereNull('error').orWhere('error', 'not like', `${RUN_LIMIT_ERROR_PREFIX}%`),
      )
      .count({ n: '*' })) as Array<{ n: number | string }>;
    return Number(row?.n ?? 0);
  }

  async list(automationId: string, page: PageQuery & { statuses?: RunStatus[] }) {
    const query = this.knex(RUNS).where({ automation_id: automationId });
    if (page.statuses && page.statuses.length > 0) query.whereIn('status', page.statuses);
    const { rows, hasMore } = await paginateNewestFirst<Row>(query, page);
    return { runs: rows.map(toRun), hasMore };
  }

  async steps(runId: string): Promise<AutomationRunStep[]> {
    const rows = (await this.knex(STEPS).where({ run_id: runId })) as StepRow[];
    return rows.map(toStep);
  }

  async findStep(runId: string, stepKey: string): Promise<AutomationRunStep | undefined> {
    const row = (await this.knex(STEPS).where({ run_id: runId, step_key: stepKey }).first()) as StepRow | undefined;
    return row ? toStep(row) : undefined;
  }

  /**
   * Locks the runs of a claimed batch (SELECT ... FOR UPDATE), in id order so two workers never
   * wait on each other crosswise; keyed by id.
   */
  async lockMany(ids: string[]): Promise<Map<string, AutomationRun>> {
    const found = new Map<string, AutomationRun>();
    for (let i = 0; i < ids.length; i += IN_CHUNK) {
      const rows = (await this.knex(RUNS)
        .whereIn('id', ids.slice(i, i + IN_CHUNK))
        .orderBy('id', 'asc')
        .forUpdate()) as Row[];
      for (const row of rows) found.set(row.id, toRun(row));
    }
    return found;
  }

  /** The step rows of many runs (a claimed batch), in one query per IN_CHUNK runs. */
  async stepsOfRuns(runIds: string[]): Promise<AutomationRunStep[]> {
    const steps: AutomationRunStep[] = [];
    for (let i = 0; i < runIds.length; i += IN_CHUNK)
      steps.push(
        ...((await this.knex(STEPS).whereIn('run_id', runIds.slice(i, i + IN_CHUNK))) as StepRow[]).map(toStep),
      );
    return steps;
  }

  /** Step rows of a batch in multi-row upserts (a row of the same run and key is replaced). */
  async putSteps(steps: AutomationRunStep[]): Promise<void> {
    const rows = steps.map(toStepRow);
    const size = rowsPerInsert(this.knex, 7);
    for (let i = 0; i < rows.length; i += size)
      await this.knex(STEPS)
        .insert(rows.slice(i, i + size))
        .onConflict(['run_id', 'step_key'])
        .merge();
  }

  /** `update` of many runs that move to the same state, in one statement per IN_CHUNK runs. */
  async updateMany(ids: string[], changes: RunChanges, at: Date, options: { keepLease?: boolean } = {}): Promise<void> {
    const row = runChanges(changes, at, options);
    for (let i = 0; i < ids.length; i += IN_CHUNK)
      await this.knex(RUNS)
        .whereIn('id', ids.slice(i, i + IN_CHUNK))
        .update(row);
  }

  /** Writes the step row, replacing an earlier one of the same key (a parked delay finishing). */
  async putStep(step: AutomationRunStep): Promise<void> {
    await this.knex(STEPS).insert(toStepRow(step)).onConflict(['run_id', 'step_key']).merge();
  }
}

type RunChanges = { status: RunStatus; nextStepKey: string | null; wakeAt: Date | null; error?: string | null };

/** The run row's columns for a move to a new state (update and updateMany write the same). */
function runChanges(changes: RunChanges, at: Date, options: { keepLease?: boolean }) {
  const ended = changes.status !== 'running';
  return {
    status: changes.status,
    next_step_key: changes.nextStepKey,
    wake_at: changes.wakeAt,
    error: changes.error ?? null,
    attempts: 0,
    updated_at: at,
    ended_at: ended ? at : null,
    ...(options.keepLease ? {} : { lease_owner: null, lease_until: null }),
  };
}
