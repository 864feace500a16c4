import type { Knex } from 'knex';
import { deleteInBatches } from '../../../db/dialect.js';
import type { Clock } from '../../../lib/clock.js';
import type { UnitOfWork, UnitsOfWork } from '../../../db/unit-of-work.js';
import { NotFoundError } from '../../../lib/errors.js';
import { isUuid, newId } from '../../../lib/ids.js';
import { purgeByPlanRetention } from '../retention/plan-retention.js';
import { redactRequestBody } from './request-log.redact.js';
import { RequestLogRepository } from './request-log.repository.js';
import type { ListLogsQuery } from './request-log.schemas.js';
import { sourceOf, type RequestLog } from './request-log.types.js';

/**
 * The team id under which the admin API's requests are logged (an operator belongs to no team):
 * the appliance's own log, read with GET /admin/logs. No team has this id (ids are UUIDv7).
 */
export const OPERATOR_LOG_TEAM_ID = '00000000-0000-0000-0000-000000000000';

/** How long the admin API's requests are kept: a year, the longest plan's window. */
export const OPERATOR_LOG_RETENTION_DAYS = 365;

export type RequestRecord = {
  teamId: string;
  apiKeyId: string | null;
  startedAt: Date;
  endpoint: string;
  method: string;
  responseStatus: number;
  userAgent: string | undefined;
  requestId: string;
  latencyMs: number;
  requestBody: unknown;
  responseBody: unknown;
  emailId: string | null;
  /** Made by a signed-in person from the dashboard (a cookie session): `source` is `dashboard`. */
  viaDashboard?: boolean;
};

const insertLogs = (trx: Knex, logs: RequestLog[]) => new RequestLogRepository(trx).insertMany(logs);

export class RequestLogService {
  private readonly logs: RequestLogRepository;
  /** Per API key, the second (epoch) whose first rate-limited request was logged. */
  private readonly rateLimitedLogged = new Map<string, number>();
  /** Rate-limited requests seen by this process, logged or not (for the metrics endpoint). */
  rateLimitedCount = 0;

  constructor(private readonly deps: { knex: Knex; clock: Clock; units: UnitsOfWork }) {
    this.logs = new RequestLogRepository(deps.knex);
  }

  /** Records one API request; bodies are redacted here, so nothing else has to remember to. */
  async record(request: RequestRecord): Promise<string> {
    // Grouped with the other requests finishing now: one durable commit, and one INSERT, for many logs.
    return this.deps.units.run((unit) => this.writeInto(unit, request));
  }

  /**
   * The log entry as a participant of another unit of work (a send's): it commits in the same
   * transaction as the change it records, so the request costs one durable commit, not two.
   */
  writeInto(unit: UnitOfWork, request: RequestRecord): string {
    const log = toLog(request);
    unit.write('request_logs', log, insertLogs);
    return log.id;
  }

  /**
   * Whether to log this rate-limited request: the first one of each second per API key (per
   * process), so a client flooding past its limit cannot make the appliance write a row per
   * refusal. Every one is counted.
   */
  shouldLogRateLimited(apiKeyId: string, nowMs: number): boolean {
    this.rateLimitedCount++;
    const second = Math.floor(nowMs / 1000);
    if (this.rateLimitedLogged.get(apiKeyId) === second) return false;
    // Bounded: forgetting the table at worst logs one more refusal per key.
    if (this.rateLimitedLogged.size >= 10_000) this.rateLimitedLogged.clear();
    this.rateLimitedLogged.set(apiKeyId, second);
    return true;
  }

  async list(teamId: string, query: ListLogsQuery) {
    return this.logs.list(teamId, query);
  }

  async get(teamId: string, id: string): Promise<RequestLog> {
    const log = isUuid(id) ? await this.logs.findInTeam(teamId, id.toLowerCase()) : undefined;
    if (!log) throw new NotFoundError('Log not found');
    return log;
  }

  /**
   * Retention: each team's logs are kept for its plan's window, the admin API's for
   * OPERATOR_LOG_RETENTION_DAYS; deleted in batches.
   */
  async purgeExpired(batch = 1000): Promise<number> {
    const { knex, clock } = this.deps;
    const now = clock.now();
    const teams = await purgeByPlanRetention(knex, 'request_logs', now, batch, [OPERATOR_LOG_TEAM_ID]);
    const before = new Date(now.getTime() - OPERATOR_LOG_RETENTION_DAYS * 86_400_000);
    const operators = await deleteInBatches(
      knex,
      'request_logs',
      () => knex('request_logs').select('id').where({ team_id: OPERATOR_LOG_TEAM_ID }).where('created_at', '<', before),
      batch,
    );
    return teams + operators;
  }
}

function toLog(request: RequestRecord): RequestLog {
  const failed = request.responseStatus >= 400;
  return {
    id: newId(),
    teamId: request.teamId,
    apiKeyId: request.apiKeyId,
    createdAt: request.startedAt,
    endpoint: request.endpoint,
    method: request.method,
    responseStatus: request.responseStatus,
    userAgent: request.userAgent ?? null,
    source: sourceOf(request.userAgent, request.viaDashboard),
    requestId: request.requestId,
    latencyMs: request.latencyMs,
    requestBody: redactRequestBody(request.requestBody),
    responseBody: failed ? request.responseBody : null,
    emailId: request.emailId,
  };
}
