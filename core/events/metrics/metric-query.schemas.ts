import { z } from 'zod';
import { isUuid } from '../../../lib/ids.js';
import { parseDateInput } from './metric-dates.js';
import {
  DIMENSIONS,
  GRANULARITIES,
  METRICS,
  type Dimension,
  type MetricName,
  type MetricsQuery,
} from './metric.types.js';
import { isTimeZone } from './zoned-time.js';

export const MAX_IDS_PER_FILTER = 100;

/** A parameter given once; a repeated one is refused rather than silently picking one. */
const single = (description: string) => z.string({ error: 'must be given once' }).describe(description);

/** Comma-separated and/or repeated (`?metrics=sent&metrics=delivered,opened`); blanks ignored. */
const list = (description: string) =>
  z
    .union([z.string(), z.array(z.string())])
    .transform((value) =>
      (Array.isArray(value) ? value : [value])
        .flatMap((item) => item.split(','))
        .map((item) => item.trim())
        .filter((item) => item.length > 0),
    )
    .describe(description);

function oneOf<T extends string>(allowed: readonly T[], what: string) {
  return (values: string[], ctx: z.RefinementCtx) => {
    const unknown = values.filter((value) => !allowed.includes(value as T));
    if (unknown.length > 0)
      ctx.addIssue({
        code: 'custom',
        message: `unknown ${what}${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')} (one of ${allowed.join(', ')})`,
      });
  };
}

const unique = <T>(values: T[]) => [...new Set(values)];

const ids = (what: string) =>
  list(`${what} ids, comma-separated or repeated, up to ${MAX_IDS_PER_FILTER}`)
    .superRefine((values, ctx) => {
      const bad = values.filter((value) => !isUuid(value));
      if (bad.length > 0)
        ctx.addIssue({ code: 'custom', message: `must be ${what} ids (UUIDs); not: ${bad.slice(0, 3).join(', ')}` });
      if (unique(values).length > MAX_IDS_PER_FILTER)
        ctx.addIssue({ code: 'custom', message: `at most ${MAX_IDS_PER_FILTER} ids` });
    })
    .transform((values) => unique(values.map((value) => value.toLowerCase())));

const date = (description: string) =>
  single(description).transform((value, ctx) => {
    const parsed = parseDateInput(value);
    if (!parsed)
      ctx.addIssue({
        code: 'custom',
        message: 'must be an ISO 8601 date (2026-07-01) or date and time (2026-07-01T00:00:00Z)',
      });
    return parsed ?? z.NEVER;
  });

/** Spec: email and broadcast cannot be combined, as dimensions or as filters. */
function emailOrBroadcast(
  value: { dimensions?: string[]; email_id?: string[]; broadcast_id?: string[] },
  ctx: z.RefinementCtx,
): void {
  const email = value.dimensions?.includes('email') || (value.email_id?.length ?? 0) > 0;
  const broadcast = value.dimensions?.includes('broadcast') || (value.broadcast_id?.length ?? 0) > 0;
  if (email && broadcast) {
    ctx.addIssue({
      code: 'custom',
      path: ['dimensions'],
      message: 'email and broadcast cannot be combined (dimensions email/broadcast, filters email_id/broadcast_id)',
    });
  }
}

export const metricsQuerySchema = z
  .object({
    start_date: date('ISO 8601 date or date-time; default six days before end_date').optional(),
    end_date: date(
      'ISO 8601 date or date-time; default now; clamped to now, then to the last completed minute',
    ).optional(),
    metrics: list('metric names, comma-separated or repeated; default every metric')
      .superRefine(oneOf(METRICS, 'metric'))
      .optional(),
    dimensions: list('period, domain, email, broadcast (email and broadcast cannot be combined)')
      .superRefine(oneOf(DIMENSIONS, 'dimension'))
      .optional(),
    granularity: z
      .enum(GRANULARITIES, { error: `must be one of ${GRANULARITIES.join(', ')}` })
      .describe('period size with the period dimension; default daily')
      .optional(),
    domain_id: ids('domain').optional(),
    email_id: ids('email').optional(),
    broadcast_id: ids('broadcast').optional(),
    timezone: single('IANA time zone for dates without an offset and for periods; default UTC')
      .refine(isTimeZone, 'must be an IANA time zone name such as Europe/Paris')
      .optional(),
  })
  .strict()
  .superRefine(emailOrBroadcast)
  .transform((value): MetricsQuery => ({
    startDate: value.start_date,
    endDate: value.end_date,
    metrics: value.metrics && value.metrics.length > 0 ? unique(value.metrics as MetricName[]) : [...METRICS],
    dimensions: unique((value.dimensions ?? []) as Dimension[]),
    granularity: value.granularity ?? 'daily',
    domainIds: value.domain_id ?? [],
    emailIds: value.email_id ?? [],
    broadcastIds: value.broadcast_id ?? [],
    timezone: value.timezone
      ? new Intl.DateTimeFormat('en-US', { timeZone: value.timezone }).resolvedOptions().timeZone
      : 'UTC',
  }));
