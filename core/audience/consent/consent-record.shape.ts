import type { ConsentRecord } from './consent-record.types.js';

/** A consent record as `GET /contacts/{contact}/consent` lists it (the address hash stays inside). */
export function publicConsentRecord(r: ConsentRecord) {
  return {
    object: 'consent_record' as const,
    id: r.id,
    kind: r.kind,
    topic_id: r.topicId,
    value: r.value,
    source: r.source,
    ip: r.ip,
    user_agent: r.userAgent,
    created_at: r.createdAt.toISOString(),
  };
}
