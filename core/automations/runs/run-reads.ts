import type { Knex } from 'knex';
import { InvalidParameterError, NotFoundError } from '../../../lib/errors.js';
import { isUuid } from '../../../lib/ids.js';
import type { PageQuery } from '../../shared/pagination/list-query.js';
import { AutomationRepository } from '../automation.repository.js';
import { AutomationRunRepository } from './automation-run.repository.js';
import { RUN_STATUSES, type RunStatus } from './automation-run.types.js';
import { stepsInGraphOrder } from './graph-walk.js';

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

/** Reads of runs for the API (the caller has checked the automation is the team's). */
export class RunReads {
  constructor(private readonly knex: Knex) {}

  /** The runs of an automation, newest first. */
  list(automationId: string, query: PageQuery & { status?: string | undefined }) {
    return new AutomationRunRepository(this.knex).list(automationId, {
      ...query,
      statuses: parseStatuses(query.status),
    });
  }

  /** One run with its steps in graph order. */
  async get(automationId: string, runId: string) {
    const runs = new AutomationRunRepository(this.knex);
    const run = isUuid(runId) ? await runs.findOfAutomation(automationId, runId.toLowerCase()) : undefined;
    if (!run) throw new NotFoundError('Automation run not found');
    const version = await new AutomationRepository(this.knex).findVersion(run.versionId);
    const rows = new Map((await runs.steps(run.id)).map((row) => [row.stepKey, row]));
    const steps = version ? stepsInGraphOrder(version).map((step) => ({ step, row: rows.get(step.key) })) : [];
    return { run, steps };
  }
}
