import type { RequestLog } from '../../core/platform/request-logs/request-log.types.js';

export function serializeLogItem(log: RequestLog) {
  return {
    object: 'log' as const,
    id: log.id,
    created_at: log.createdAt.toISOString(),
    endpoint: log.endpoint,
    method: log.method,
    response_status: log.responseStatus,
    user_agent: log.userAgent,
    source: log.source,
    request_id: log.requestId,
    latency_ms: log.latencyMs,
    api_key_id: log.apiKeyId,
  };
}

export function serializeLog(log: RequestLog) {
  return {
    ...serializeLogItem(log),
    request_body: log.requestBody ?? null,
    response_body: log.responseStatus >= 400 ? (log.responseBody ?? null) : null,
    email_id: log.emailId,
  };
}
