import type { Knex } from 'knex';
import type { Clock } from '../../../lib/clock.js';
import { commitPart, type CommitPart, type GroupCommitter } from '../../../db/group-commit.js';
import { NotFoundError } from '../../../lib/errors.js';
import { isUuid, newId } from '../../../lib/ids.js';
import { purgeByPlanRetention } from '../retention/plan-retention.js';
import { redactRequestBody } from './request-log.redact.js';
import { RequestLogRepository } from './request-log.repository.js';
import type { ListLogsQuery } from './request-log.schemas.js';
import { sourceOf, type RequestLog } from './request-log.types.js';

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
};

const insertLogs = (trx: Knex, logs: RequestLog[]) => new RequestLogRepository(trx).insertMany(logs);

export class RequestLogService {
  private readonly logs: RequestLogRepository;

  constructor(private readonly deps: { knex: Knex; clock: Clock; committer: GroupCommitter }) {
    this.logs = new RequestLogRepository(deps.knex);
  }

  /** Records one API request; bodies are redacted here, so nothing else has to remember to. */
  async record(request: RequestRecord): Promise<string> {
    const part = this.part(request);
    // Grouped with the other requests finishing now: one durable commit, and one INSERT, for many logs.
    await this.deps.committer.commit([part]);
    return (part.payload as RequestLog).id;
  }

  /**
   * The log entry as a part of another commit (a send's): it commits in the same transaction as
   * the change it records, so the request costs one durable commit instead of two.
   */
  part(request: RequestRecord): CommitPart {
    const failed = request.responseStatus >= 400;
    return commitPart<RequestLog>(
      'request_logs',
      {
        id: newId(),
        teamId: request.teamId,
        apiKeyId: request.apiKeyId,
        createdAt: request.startedAt,
        endpoint: request.endpoint,
        method: request.method,
        responseStatus: request.responseStatus,
        userAgent: request.userAgent ?? null,
        source: sourceOf(request.userAgent),
        requestId: request.requestId,
        latencyMs: request.latencyMs,
        requestBody: redactRequestBody(request.requestBody),
        responseBody: failed ? request.responseBody : null,
        emailId: request.emailId,
      },
      insertLogs,
    );
  }

  async list(teamId: string, query: ListLogsQuery) {
    return this.logs.list(teamId, query);
  }

  async get(teamId: string, id: string): Promise<RequestLog> {
    const log = isUuid(id) ? await this.logs.findInTeam(teamId, id.toLowerCase()) : undefined;
    if (!log) throw new NotFoundError('Log not found');
    return log;
  }

  /** Retention: each team's logs are kept for its plan's window, deleted in batches. */
  async purgeExpired(batch = 1000): Promise<number> {
    return purgeByPlanRetention(this.deps.knex, 'request_logs', this.deps.clock.now(), batch);
  }
}
