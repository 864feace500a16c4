import { z } from 'zod';
import { isUuid } from '../../../lib/ids.js';
import { dateOrInstantParam, endNotBeforeStart } from '../../shared/pagination/date-filters.js';
import { pageQueryShape, withPageRules } from '../../shared/pagination/list-query.js';

export const AUDIT_ACTOR_TYPES = ['user', 'api_key', 'oauth_app', 'operator', 'system'] as const;

const token = (max: number, message: string) =>
  z
    .string()
    .regex(/^[a-z0-9_.]+$/, message)
    .max(max, `must be at most ${max} characters`);

const filterShape = {
  ...pageQueryShape,
  action: token(80, 'must be an action such as api_key.created'),
  actor_type: z.enum(AUDIT_ACTOR_TYPES, { message: `must be one of ${AUDIT_ACTOR_TYPES.join(', ')}` }),
  actor_id: z.string().min(1).max(64),
  resource_type: token(40, 'must be a resource type such as domain'),
  resource_id: z.string().min(1).max(255),
  start_date: dateOrInstantParam('start'),
  end_date: dateOrInstantParam('end'),
};

const optionalShape = Object.fromEntries(
  Object.entries(filterShape).map(([name, schema]) => [name, (schema as z.ZodType).optional()]),
) as { [K in keyof typeof filterShape]: z.ZodOptional<(typeof filterShape)[K]> };

/** GET /audit-logs: the list conventions plus filters that each narrow the page. */
export const listAuditQuerySchema = withPageRules(z.object(optionalShape).strict()).superRefine(endNotBeforeStart);

/** GET /admin/audit-logs: the same, across teams, with a team filter. */
export const listOperatorAuditQuerySchema = withPageRules(
  z
    .object({
      ...optionalShape,
      team_id: z
        .string()
        .refine(isUuid, 'must be a team id (a UUID)')
        .transform((value) => value.toLowerCase())
        .optional(),
    })
    .strict(),
).superRefine(endNotBeforeStart);

export type ListAuditQuery = z.infer<typeof listAuditQuerySchema> & { team_id?: string };
