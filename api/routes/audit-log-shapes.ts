import { z } from 'zod';
import { AUDIT_ACTOR_TYPES } from '../../core/platform/audit/audit.schemas.js';

export const auditEntryShape = z.object({
  object: z.literal('audit_log'),
  id: z.string(),
  action: z.string().describe('`<resource>.<past-tense verb>`, e.g. api_key.created'),
  actor: z.object({ type: z.enum(AUDIT_ACTOR_TYPES), id: z.string().nullable(), name: z.string().nullable() }),
  resource: z.object({ type: z.string(), id: z.string().nullable() }),
  metadata: z.record(z.string(), z.unknown()).describe('Short facts about the change; never a secret, token or body'),
  ip: z.string().nullable(),
  user_agent: z.string().nullable(),
  created_at: z.string(),
});

export const operatorAuditEntryShape = auditEntryShape.extend({ team_id: z.string() });
