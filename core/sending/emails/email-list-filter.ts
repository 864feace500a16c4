import type { Knex } from 'knex';
import { z } from 'zod';
import { whereContains } from '../../../db/dialect.js';
import { isUuid } from '../../../lib/ids.js';
import { instantParam } from '../../shared/pagination/date-filters.js';
import { searchParam } from '../../shared/pagination/list-query.js';
import type { EmailLastEvent } from './email.types.js';

/** The spec's (and the SDK's) `last_event` values, which GET /emails filters on. */
export const EMAIL_LAST_EVENTS = [
  'bounced',
  'canceled',
  'clicked',
  'complained',
  'delivered',
  'delivery_delayed',
  'failed',
  'opened',
  'queued',
  'scheduled',
  'sent',
  'suppressed',
] as const satisfies readonly EmailLastEvent[];

/**
 * The dashboard's filters of GET /emails, beside the SDK's limit/after/before (which they leave
 * as they were: `emails.list({ limit, after, before })` sends none of these).
 */
export const emailListFilterShape = {
  last_event: z.enum(EMAIL_LAST_EVENTS, { error: `must be one of ${EMAIL_LAST_EVENTS.join(', ')}` }).optional(),
  domain_id: z
    .string()
    .refine(isUuid, 'must be a domain id (a UUID)')
    .transform((value) => value.toLowerCase())
    .optional(),
  created_after: instantParam().optional(),
  created_before: instantParam().optional(),
  q: searchParam(200).optional(),
};

export type EmailListFilter = {
  last_event?: EmailLastEvent;
  domain_id?: string;
  created_after?: Date;
  created_before?: Date;
  q?: string;
};

/** created_before not after created_after is refused (422 invalid_parameter, like end_date). */
export function createdRangeRule(value: EmailListFilter, ctx: z.RefinementCtx): void {
  if (value.created_after && value.created_before && value.created_before <= value.created_after)
    ctx.addIssue({ code: 'custom', path: ['created_before'], message: 'must be later than created_after' });
}

/**
 * How far an email's id time may be from its created_at: both are read from the system clock
 * during the same acceptance (milliseconds apart); a minute is room to spare, and what it admits
 * the exact created_at condition removes.
 */
const ID_TIME_SLACK_MS = 60_000;
const MAX_UUID_MS = 2 ** 48 - 1;

/** The smallest UUIDv7 of a millisecond: every id made at or after `ms` sorts at or after it. */
export function uuidV7Floor(ms: number): string {
  const hex = Math.min(Math.max(0, Math.floor(ms)), MAX_UUID_MS)
    .toString(16)
    .padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-0000-0000-000000000000`;
}

/**
 * The index a filtered page reads (migrations 20261122-0014 and 20261127-0091): named, because
 * MariaDB's own choice is not always the range (see tableUsingIndex). With both last_event and
 * domain_id, last_event's: the other is checked on the rows it gives.
 */
export function emailListIndex(filter: EmailListFilter): string {
  if (filter.last_event) return 'emails_team_last_event_id';
  if (filter.domain_id) return 'emails_team_domain_id';
  return 'emails_team_id_id_index';
}

/**
 * Adds the filters to a team's emails query. Each keeps the page one index range (see migration
 * 20261127-0091): last_event and domain_id are equalities on (team_id, <column>, id); the dates
 * become an id range as well (ids are time-ordered UUIDv7), since a range on created_at could not
 * give rows in id order without sorting the whole range; created_at itself is still compared,
 * exactly. `q` cannot use an index: a case-insensitive substring of the recipients (`to`, with
 * display names) or the subject, read newest first until the page is full.
 */
export function applyEmailListFilter(query: Knex.QueryBuilder, filter: EmailListFilter): Knex.QueryBuilder {
  if (filter.last_event) query.where('last_event', filter.last_event);
  if (filter.domain_id) query.where('domain_id', filter.domain_id);
  if (filter.created_after) {
    query.where('id', '>=', uuidV7Floor(filter.created_after.getTime() - ID_TIME_SLACK_MS));
    query.where('created_at', '>', filter.created_after);
  }
  if (filter.created_before) {
    query.where('id', '<', uuidV7Floor(filter.created_before.getTime() + ID_TIME_SLACK_MS));
    query.where('created_at', '<', filter.created_before);
  }
  if (filter.q) whereContains(query, ['to_addresses', 'subject'], filter.q);
  return query;
}
