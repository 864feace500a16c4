import type { ApiKey } from '../../core/platform/api-keys/api-key.types.js';
import { isoOrNull } from '../../db/dialect.js';

export function serializeApiKey(key: ApiKey) {
  return {
    object: 'api_key' as const,
    id: key.id,
    name: key.name,
    created_at: key.createdAt.toISOString(),
    last_used_at: isoOrNull(key.lastUsedAt),
    permission: key.permission,
    domain_id: key.domainId,
    key_prefix: key.keyPrefix,
    status: key.status,
    last_used_request_log_id: key.lastUsedRequestLogId,
  };
}
