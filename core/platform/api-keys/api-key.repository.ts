import type { Knex } from 'knex';
import { readNullableTimestamp, readTimestamp, whereContains } from '../../../db/dialect.js';
import { NOT_A_CHANGE } from '../../../db/write-watcher.js';
import { paginateNewestFirst, type PageQuery } from '../../shared/pagination/list-query.js';
import type { ApiKey, ApiKeyPermission, ApiKeyStatus } from './api-key.types.js';

type ApiKeyRow = {
  id: string;
  team_id: string;
  name: string;
  permission: string;
  domain_id: string | null;
  key_prefix: string;
  status: string;
  created_at: unknown;
  last_used_at: unknown;
  last_used_request_log_id?: string | null;
};

function toApiKey(row: ApiKeyRow): ApiKey {
  return {
    id: row.id,
    teamId: row.team_id,
    name: row.name,
    permission: row.permission as ApiKeyPermission,
    domainId: row.domain_id,
    keyPrefix: row.key_prefix,
    status: row.status as ApiKeyStatus,
    createdAt: readTimestamp(row.created_at),
    lastUsedAt: readNullableTimestamp(row.last_used_at),
    lastUsedRequestLogId: row.last_used_request_log_id ?? null,
  };
}

export type ApiKeyFilter = PageQuery & {
  status?: 'active' | 'revoked' | 'all';
  search?: string;
  permission?: ApiKeyPermission;
};

export class ApiKeyRepository {
  constructor(private readonly knex: Knex) {}

  /** Keys with their latest request log id, found through the (api_key_id, id) index. */
  private select(): Knex.QueryBuilder {
    const latestLog = this.knex('request_logs')
      .max('id')
      .where('api_key_id', this.knex.ref('api_keys.id'))
      .as('last_used_request_log_id');
    return this.knex('api_keys').select('api_keys.*', latestLog);
  }

  async insert(
    key: Omit<ApiKey, 'lastUsedAt' | 'lastUsedRequestLogId'> & { tokenHash: string },
    trx: Knex = this.knex,
  ): Promise<void> {
    await trx('api_keys').insert({
      id: key.id,
      team_id: key.teamId,
      name: key.name,
      permission: key.permission,
      domain_id: key.domainId,
      key_prefix: key.keyPrefix,
      token_hash: key.tokenHash,
      status: key.status,
      created_at: key.createdAt,
    });
  }

  async findByTokenHash(tokenHash: string): Promise<ApiKey | undefined> {
    const row = (await this.knex('api_keys').where({ token_hash: tokenHash }).first()) as ApiKeyRow | undefined;
    return row ? toApiKey(row) : undefined;
  }

  async findInTeam(teamId: string, id: string): Promise<ApiKey | undefined> {
    const row = (await this.select().where({ 'api_keys.team_id': teamId, 'api_keys.id': id }).first()) as
      ApiKeyRow | undefined;
    return row ? toApiKey(row) : undefined;
  }

  async list(teamId: string, filter: ApiKeyFilter): Promise<{ keys: ApiKey[]; hasMore: boolean }> {
    const query = this.select().where('api_keys.team_id', teamId);
    const status = filter.status ?? 'active';
    // "active" lists every key that still works or could again: suspended ones included.
    if (status === 'active') query.whereIn('api_keys.status', ['active', 'suspended']);
    if (status === 'revoked') query.where('api_keys.status', 'revoked');
    if (filter.permission) query.where('api_keys.permission', filter.permission);
    if (filter.search) whereContains(query, ['api_keys.name'], filter.search);
    const { rows, hasMore } = await paginateNewestFirst<ApiKeyRow>(query, filter, 'api_keys.id');
    return { keys: rows.map(toApiKey), hasMore };
  }

  async rename(id: string, name: string): Promise<void> {
    await this.knex('api_keys').where({ id }).update({ name });
  }

  async setStatus(id: string, status: ApiKeyStatus, now: Date): Promise<void> {
    await this.knex('api_keys')
      .where({ id })
      .update({ status, revoked_at: status === 'revoked' ? now : null });
  }

  /**
   * Refreshes last_used_at at most once a minute: one conditional UPDATE, so concurrent requests
   * write once. Not a change of the key as far as cached look-ups are concerned.
   */
  async touch(id: string, now: Date): Promise<void> {
    const stale = new Date(now.getTime() - 60_000);
    await this.knex('api_keys')
      .queryContext(NOT_A_CHANGE)
      .where({ id })
      .andWhere((q) => q.whereNull('last_used_at').orWhere('last_used_at', '<', stale))
      .update({ last_used_at: now });
  }
}
