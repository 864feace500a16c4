import type { Knex } from 'knex';
import { NotFoundError } from '../../lib/errors.js';
import { isUuid } from '../../lib/ids.js';
import { AutomationRepository } from './automation.repository.js';
import type { Automation, AutomationVersion } from './automation.types.js';
import { AutomationRunRepository } from './runs/automation-run.repository.js';
import { RUN_STATUSES, type RunStatus } from './runs/automation-run.types.js';

export type RunCounts = Record<RunStatus, number>;
export type VersionView = { version: AutomationVersion; active: boolean; runs: RunCounts };

const zeroCounts = (): RunCounts => Object.fromEntries(RUN_STATUSES.map((s) => [s, 0])) as RunCounts;

/**
 * Reads of an automation's versions for the API (the caller has checked the automation is the
 * team's): every version with how many runs pinned it, by status (runs keep the version they
 * started on, so an older version may still have running ones), and the version one run pinned.
 */
export class AutomationVersionReads {
  constructor(private readonly knex: Knex) {}

  /** Every version, newest first, with its run counts. */
  async list(automation: Automation): Promise<VersionView[]> {
    const versions = await new AutomationRepository(this.knex).versions(automation.id);
    const rows = (await this.knex('automation_runs')
      .where({ automation_id: automation.id })
      .groupBy('version_id', 'status')
      .select('version_id', 'status')
      .count({ n: '*' })) as Array<{ version_id: string; status: RunStatus; n: number | string }>;
    const counts = new Map<string, RunCounts>();
    for (const row of rows) {
      const entry = counts.get(row.version_id) ?? zeroCounts();
      entry[row.status] = Number(row.n);
      counts.set(row.version_id, entry);
    }
    return versions
      .map((version) => ({
        version,
        active: version.id === automation.activeVersionId,
        runs: counts.get(version.id) ?? zeroCounts(),
      }))
      .reverse();
  }

  /** The version a run of the automation pinned (404 when the run is not the automation's). */
  async ofRun(automation: Automation, runId: string): Promise<VersionView> {
    const run = isUuid(runId)
      ? await new AutomationRunRepository(this.knex).findOfAutomation(automation.id, runId.toLowerCase())
      : undefined;
    if (!run) throw new NotFoundError('Automation run not found');
    const view = (await this.list(automation)).find((v) => v.version.id === run.versionId);
    if (!view) throw new NotFoundError('Automation version not found');
    return view;
  }
}
