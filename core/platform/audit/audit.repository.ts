import type { Knex } from 'knex';
import { readJson, readTimestamp, writeJson } from '../../../db/dialect.js';
import { paginateNewestFirst } from '../../shared/pagination/list-query.js';
import type { ListAuditQuery } from './audit.schemas.js';
import type { AuditActorType, AuditEntry, AuditMetadata } from './audit.types.js';

type AuditRow = {
  id: string;
  team_id: string;
  action: string;
  actor_type: string;
  actor_id: string | null;
  actor_name: string | null;
  resource_type: string;
  resource_id: string | null;
  metadata: string;
  ip: string | null;
  user_agent: string | null;
  created_at: unknown;
};

const TABLE = 'audit_log_entries';
const INSERT_CHUNK = 100;

function toEntry(row: AuditRow): AuditEntry {
  return {
    id: row.id,
    teamId: row.team_id,
    action: row.action,
    actor: { type: row.actor_type as AuditActorType, id: row.actor_id, name: row.actor_name },
    resource: { type: row.resource_type, id: row.resource_id },
    metadata: readJson<AuditMetadata>(row.metadata, {}),
    ip: row.ip,
    userAgent: row.user_agent,
    createdAt: readTimestamp(row.created_at),
  };
}

function toRow(entry: AuditEntry): AuditRow {
  return {
    id: entry.id,
    team_id: entry.teamId,
    action: entry.action.slice(0, 80),
    actor_type: entry.actor.type,
    actor_id: entry.actor.id?.slice(0, 64) ?? null,
    actor_name: entry.actor.name?.slice(0, 320) ?? null,
    resource_type: entry.resource.type.slice(0, 40),
    resource_id: entry.resource.id?.slice(0, 255) ?? null,
    metadata: writeJson(entry.metadata) ?? '{}',
    ip: entry.ip?.slice(0, 64) ?? null,
    user_agent: entry.userAgent?.slice(0, 512) ?? null,
    created_at: entry.createdAt,
  };
}

/** Append and read; nothing here updates a row (the log is append-only), retention deletes old ones. */
export class AuditRepository {
  constructor(private readonly knex: Knex) {}

  async insertMany(entries: readonly AuditEntry[]): Promise<void> {
    for (let i = 0; i < entries.length; i += INSERT_CHUNK)
      await this.knex(TABLE).insert(entries.slice(i, i + INSERT_CHUNK).map(toRow));
  }

  async find(id: string, teamId?: string): Promise<AuditEntry | undefined> {
    const query = this.knex(TABLE).where({ id });
    if (teamId !== undefined) query.andWhere({ team_id: teamId });
    const row = (await query.first()) as AuditRow | undefined;
    return row ? toEntry(row) : undefined;
  }

  /** A newest-first page; without `teamId` (the operator's view) across every team. */
  async list(filter: ListAuditQuery, teamId?: string): Promise<{ entries: AuditEntry[]; hasMore: boolean }> {
    const query = this.knex(TABLE).select('*');
    const team = teamId ?? filter.team_id;
    if (team !== undefined) query.where('team_id', team);
    if (filter.action) query.where('action', filter.action);
    if (filter.actor_type) query.where('actor_type', filter.actor_type);
    if (filter.actor_id) query.where('actor_id', filter.actor_id);
    if (filter.resource_type) query.where('resource_type', filter.resource_type);
    if (filter.resource_id) query.where('resource_id', filter.resource_id);
    if (filter.start_date) query.where('created_at', '>=', filter.start_date);
    if (filter.end_date) query.where('created_at', '<=', filter.end_date);
    const { rows, hasMore } = await paginateNewestFirst<AuditRow>(query, filter);
    return { entries: rows.map(toEntry), hasMore };
  }
}
