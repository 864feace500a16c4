import type { Knex } from 'knex';
import { NotFoundError } from '../../../lib/errors.js';
import type { TeamService } from '../../platform/teams/team.service.js';
import { utcMonthStart } from '../../shared/scheduling/quota-periods.js';
import { AutomationRunRepository } from './automation-run.repository.js';
import { RUN_LIMIT_ERROR_PREFIX, type AutomationRun } from './automation-run.types.js';

/**
 * The plan's monthly automation run limit (automation_runs_monthly), applied where runs start
 * (enrolment). A run past it is not started: it is recorded as failed, with an error that says
 * why, so the team sees it in the run list and gets automation.run.failed, but it executes no
 * step and is not counted (AutomationRunRepository.countStartedSince). The month is the UTC
 * calendar month, as for the email quotas; GET /usage reports the same count.
 */
export class RunLimit {
  constructor(private readonly deps: { knex: Knex; teams: Pick<TeamService, 'get'> }) {}

  /** Marks the runs of each team past what is left of its month as refused, in order; returns how many. */
  async refuseOverLimit(runs: AutomationRun[], now: Date): Promise<number> {
    const repository = new AutomationRunRepository(this.deps.knex);
    const monthStart = utcMonthStart(now);
    let refused = 0;
    for (const teamId of new Set(runs.map((run) => run.teamId))) {
      const team = await this.deps.teams.get(teamId).catch((err: unknown) => {
        if (err instanceof NotFoundError) return undefined; // deleted meanwhile: its runs go with it
        throw err;
      });
      if (!team) continue;
      const { plan } = team;
      const limit = plan.limits.automation_runs_monthly;
      let room = limit - (await repository.countStartedSince(teamId, monthStart));
      const error =
        `${RUN_LIMIT_ERROR_PREFIX}the ${plan.name} plan's ${limit} automation runs this month are used ` +
        'up (the count restarts on the first of the month, 00:00 UTC)';
      for (const run of runs) {
        if (run.teamId !== teamId) continue;
        if (room > 0) {
          room--;
          continue;
        }
        Object.assign(run, { status: 'failed', nextStepKey: null, wakeAt: null, error, endedAt: now });
        refused++;
      }
    }
    return refused;
  }
}
