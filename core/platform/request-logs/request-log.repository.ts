import type { Knex } from 'knex';
import { readJson, readTimestamp, whereContains, whereStartsWith, writeJson } from '../../../db/dialect.js';
import { paginateNewestFirst } from '../../shared/pagination/list-query.js';
import type { ListLogsQuery } from './request-log.schemas.js';
import type { RequestLog } from './request-log.types.js';

type RequestLogRow = {
  id: string;
  team_id: string;
  api_key_id: string | null;
  created_at: unknown;
  endpoint: string;
  method: string;
  response_status: number;
  user_agent: string | null;
  source: string;
  request_id: string;
  latency_ms: number;
  request_body?: string | null;
  response_body?: string | null;
  email_id?: string | null;
};

const LIST_COLUMNS = [
  'id',
  'team_id',
  'api_key_id',
  'created_at',
  'endpoint',
  'method',
  'response_status',
  'user_agent',
  'source',
  'request_id',
  'latency_ms',
];

function toLog(row: RequestLogRow): RequestLog {
  return {
    id: row.id,
    teamId: row.team_id,
    apiKeyId: row.api_key_id,
    createdAt: readTimestamp(row.created_at),
    endpoint: row.endpoint,
    method: row.method,
    responseStatus: Number(row.response_status),
    userAgent: row.user_agent,
    source: row.source,
    requestId: row.request_id,
    latencyMs: Number(row.latency_ms),
    requestBody: readJson(row.request_body, null),
    responseBody: readJson(row.response_body, null),
    emailId: row.email_id ?? null,
  };
}

function toRow(log: RequestLog): Record<string, unknown> {
  return {
    id: log.id,
    team_id: log.teamId,
    api_key_id: log.apiKeyId,
    created_at: log.createdAt,
    endpoint: log.endpoint.slice(0, 2048),
    method: log.method,
    response_status: log.responseStatus,
    user_agent: log.userAgent?.slice(0, 512) ?? null,
    source: log.source,
    request_id: log.requestId,
    latency_ms: log.latencyMs,
    request_body: writeJson(log.requestBody),
    response_body: writeJson(log.responseBody),
    email_id: log.emailId,
  };
}

/** Rows per INSERT statement: well inside SQLite's bound-variable limit and MySQL's packet size. */
const INSERT_CHUNK = 100;

export class RequestLogRepository {
  constructor(private readonly knex: Knex) {}

  async insert(log: RequestLog): Promise<void> {
    await this.insertMany([log]);
  }

  /** Several logs in multi-row INSERTs (the group committer writes a group's logs at once). */
  async insertMany(logs: RequestLog[]): Promise<void> {
    for (let i = 0; i < logs.length; i += INSERT_CHUNK)
      await this.knex('request_logs').insert(logs.slice(i, i + INSERT_CHUNK).map(toRow));
  }

  async findInTeam(teamId: string, id: string): Promise<RequestLog | undefined> {
    const row = (await this.knex('request_logs').where({ team_id: teamId, id }).first()) as RequestLogRow | undefined;
    return row ? toLog(row) : undefined;
  }

  async list(teamId: string, filter: ListLogsQuery): Promise<{ logs: RequestLog[]; hasMore: boolean }> {
    const query = this.knex('request_logs').select(LIST_COLUMNS).where({ team_id: teamId });
    if (filter.status) query.whereBetween('response_status', [filter.status.from, filter.status.to]);
    if (filter.method) query.where('method', filter.method);
    if (filter.path) whereStartsWith(query, 'endpoint', filter.path);
    // Served by the (api_key_id, id) index: one key's requests, newest first.
    if (filter.api_key_id) query.where('api_key_id', filter.api_key_id);
    if (filter.source) query.where('source', filter.source);
    if (filter.exclude_source) query.whereNot('source', filter.exclude_source);
    if (filter.user_agent) query.where('user_agent', filter.user_agent);
    if (filter.search) whereContains(query, ['endpoint'], filter.search);
    if (filter.start_date) query.where('created_at', '>=', filter.start_date);
    if (filter.end_date) query.where('created_at', '<=', filter.end_date);
    const { rows, hasMore } = await paginateNewestFirst<RequestLogRow>(query, filter);
    return { logs: rows.map(toLog), hasMore };
  }
}
