import type { Knex } from 'knex';
import { readJson, readNullableTimestamp, readTimestamp, whereContains, writeJson } from '../../db/dialect.js';
import { paginateNewestFirst, type PageQuery } from '../shared/pagination/list-query.js';
import type {
  Automation,
  AutomationConnection,
  AutomationStatus,
  AutomationStep,
  AutomationVersion,
} from './automation.types.js';

const AUTOMATIONS = 'automations';
const VERSIONS = 'automation_versions';

type Row = {
  id: string;
  team_id: string;
  name: string;
  status: string;
  active_version_id: string;
  created_at: unknown;
  updated_at: unknown;
};

type VersionRow = {
  id: string;
  automation_id: string;
  number: unknown;
  steps: unknown;
  connections: unknown;
  created_at: unknown;
};

const toAutomation = (row: Row): Automation => ({
  id: row.id,
  teamId: row.team_id,
  name: row.name,
  status: row.status as AutomationStatus,
  activeVersionId: row.active_version_id,
  createdAt: readTimestamp(row.created_at),
  updatedAt: readNullableTimestamp(row.updated_at),
});

const toVersion = (row: VersionRow): AutomationVersion => ({
  id: row.id,
  automationId: row.automation_id,
  number: Number(row.number),
  steps: readJson<AutomationStep[]>(row.steps, []),
  connections: readJson<AutomationConnection[]>(row.connections, []),
  createdAt: readTimestamp(row.created_at),
});

/**
 * Automations (live ones: a deleted automation is 404) and their versions. Versions are only
 * ever inserted: there is no method that changes one.
 */
export class AutomationRepository {
  constructor(private readonly knex: Knex) {}

  private live(teamId: string) {
    return this.knex(AUTOMATIONS).where({ team_id: teamId }).whereNull('deleted_at');
  }

  /** The automation and its version 1, both new (in one transaction: the caller's). */
  async insert(automation: Automation, version: AutomationVersion): Promise<void> {
    await this.knex(AUTOMATIONS).insert({
      id: automation.id,
      team_id: automation.teamId,
      name: automation.name,
      status: automation.status,
      active_version_id: automation.activeVersionId,
      created_at: automation.createdAt,
      updated_at: automation.updatedAt,
    });
    await this.insertVersion(version);
  }

  async insertVersion(version: AutomationVersion): Promise<void> {
    await this.knex(VERSIONS).insert({
      id: version.id,
      automation_id: version.automationId,
      number: version.number,
      steps: writeJson(version.steps),
      connections: writeJson(version.connections),
      created_at: version.createdAt,
    });
  }

  async findById(teamId: string, id: string, options: { forUpdate?: boolean } = {}): Promise<Automation | undefined> {
    const query = this.live(teamId).where({ id });
    if (options.forUpdate) query.forUpdate();
    const row = (await query.first()) as Row | undefined;
    return row ? toAutomation(row) : undefined;
  }

  async findVersion(versionId: string): Promise<AutomationVersion | undefined> {
    const row = (await this.knex(VERSIONS).where({ id: versionId }).first()) as VersionRow | undefined;
    return row ? toVersion(row) : undefined;
  }

  async versions(automationId: string): Promise<AutomationVersion[]> {
    const rows = (await this.knex(VERSIONS).where({ automation_id: automationId }).orderBy('number')) as VersionRow[];
    return rows.map(toVersion);
  }

  async latestVersionNumber(automationId: string): Promise<number> {
    const row = (await this.knex(VERSIONS).where({ automation_id: automationId }).max({ n: 'number' }).first()) as
      { n: unknown } | undefined;
    return Number(row?.n ?? 0);
  }

  /** Changes the given fields; false when the automation was deleted meanwhile. */
  async update(
    id: string,
    changes: { name?: string; status?: AutomationStatus; activeVersionId?: string },
    at: Date,
  ): Promise<boolean> {
    const changed = await this.knex(AUTOMATIONS)
      .where({ id })
      .whereNull('deleted_at')
      .update({
        ...(changes.name !== undefined ? { name: changes.name } : {}),
        ...(changes.status !== undefined ? { status: changes.status } : {}),
        ...(changes.activeVersionId !== undefined ? { active_version_id: changes.activeVersionId } : {}),
        updated_at: at,
      });
    return changed > 0;
  }

  /** False when someone else deleted it first. */
  async softDelete(id: string, at: Date): Promise<boolean> {
    const changed = await this.knex(AUTOMATIONS).where({ id }).whereNull('deleted_at').update({ deleted_at: at });
    return changed > 0;
  }

  async list(teamId: string, page: PageQuery & { status?: AutomationStatus; search?: string }) {
    const query = this.live(teamId);
    if (page.status) query.where({ status: page.status });
    if (page.search) whereContains(query, ['name'], page.search);
    const { rows, hasMore } = await paginateNewestFirst<Row>(query, page);
    return { automations: rows.map(toAutomation), hasMore };
  }

  /** Every live automation of the team with its active version (property usage). */
  async allWithActiveVersion(teamId: string): Promise<{ automation: Automation; version: AutomationVersion }[]> {
    const rows = (await this.live(teamId)
      .join(`${VERSIONS} as v`, 'v.id', `${AUTOMATIONS}.active_version_id`)
      .select(
        `${AUTOMATIONS}.*`,
        'v.number as v_number',
        'v.steps as v_steps',
        'v.connections as v_connections',
        'v.created_at as v_created_at',
      )) as (Row & { v_number: unknown; v_steps: unknown; v_connections: unknown; v_created_at: unknown })[];
    return rows.map((row) => ({
      automation: toAutomation(row),
      version: toVersion({
        id: row.active_version_id,
        automation_id: row.id,
        number: row.v_number,
        steps: row.v_steps,
        connections: row.v_connections,
        created_at: row.v_created_at,
      }),
    }));
  }
}
