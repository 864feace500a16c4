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
  trigger_event: string | null;
  trigger_definition_id: string | null;
  trigger_subject_id: string | null;
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
  trigger: {
    event: row.trigger_event ?? '',
    definitionId: row.trigger_definition_id,
    subjectId: row.trigger_subject_id,
  },
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
      trigger_event: version.trigger.event,
      trigger_definition_id: version.trigger.definitionId,
      trigger_subject_id: version.trigger.subjectId,
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
        'v.trigger_event as v_trigger_event',
        'v.trigger_definition_id as v_trigger_definition_id',
        'v.trigger_subject_id as v_trigger_subject_id',
        'v.created_at as v_created_at',
      )) as (Row & {
      v_number: unknown;
      v_steps: unknown;
      v_connections: unknown;
      v_trigger_event: string | null;
      v_trigger_definition_id: string | null;
      v_trigger_subject_id: string | null;
      v_created_at: unknown;
    })[];
    return rows.map((row) => ({
      automation: toAutomation(row),
      version: toVersion({
        id: row.active_version_id,
        automation_id: row.id,
        number: row.v_number,
        steps: row.v_steps,
        connections: row.v_connections,
        trigger_event: row.v_trigger_event,
        trigger_definition_id: row.v_trigger_definition_id,
        trigger_subject_id: row.v_trigger_subject_id,
        created_at: row.v_created_at,
      }),
    }));
  }

  /**
   * The enabled, live automations of these teams whose active version's trigger names one of
   * `events`, each with that version (what an occurrence enrols into).
   */
  async enabledTriggeredBy(
    teamIds: string[],
    events: string[],
  ): Promise<{ automation: Automation; version: AutomationVersion }[]> {
    if (teamIds.length === 0 || events.length === 0) return [];
    const rows = (await this.knex(`${AUTOMATIONS} as a`)
      .join(`${VERSIONS} as v`, 'v.id', 'a.active_version_id')
      .whereIn('a.team_id', teamIds)
      .where('a.status', 'enabled')
      .whereNull('a.deleted_at')
      .whereIn('v.trigger_event', events)
      .select('a.*', 'v.id as v_id', 'v.number', 'v.steps', 'v.connections', 'v.trigger_event')
      .select('v.trigger_definition_id', 'v.trigger_subject_id', 'v.created_at as v_created_at')) as (Row &
      Omit<VersionRow, 'id' | 'automation_id' | 'created_at'> & { v_id: string; v_created_at: unknown })[];
    return rows.map((row) => ({
      automation: toAutomation(row),
      version: toVersion({ ...row, id: row.v_id, automation_id: row.id, created_at: row.v_created_at }),
    }));
  }

  /** Every enabled, live automation on a platform trigger (svc:...) with its binding: the trigger index. */
  async platformTriggerBindings(): Promise<
    Array<{ teamId: string; automationId: string } & AutomationVersion['trigger']>
  > {
    const rows = (await this.knex(`${AUTOMATIONS} as a`)
      .join(`${VERSIONS} as v`, 'v.id', 'a.active_version_id')
      .where('a.status', 'enabled')
      .whereNull('a.deleted_at')
      .where('v.trigger_event', 'like', 'svc:%')
      .select('a.team_id', 'a.id', 'v.trigger_event', 'v.trigger_subject_id')) as Array<{
      team_id: string;
      id: string;
      trigger_event: string;
      trigger_subject_id: string | null;
    }>;
    return rows.map((row) => ({
      teamId: row.team_id,
      automationId: row.id,
      event: row.trigger_event,
      definitionId: null,
      subjectId: row.trigger_subject_id,
    }));
  }
}
