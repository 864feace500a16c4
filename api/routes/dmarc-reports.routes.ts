import { z } from 'zod';
import { dateOrInstantParam } from '../../core/shared/pagination/date-filters.js';
import { listEnvelope, pageQueryShape, withPageRules } from '../../core/shared/pagination/list-query.js';
import { defineRoute } from '../route.js';
import { listSchema, uuidParam } from '../schemas.js';
import { serializeDmarcReport, serializeDmarcSummary } from '../serializers/dmarc-report.serializer.js';

/**
 * DMARC aggregate reports (RFC 7489 rua) that receivers sent about a domain, and what they add
 * up to: who sends mail as the domain, and how much of it passes SPF and DKIM alignment.
 */
const tag = 'domains';
const params = z.object({ domain_id: uuidParam('Domain id') });
const isolation = { param: 'domain_id', resource: 'domain' };
const rate = z.number().min(0).max(1);
const authResults = z.object({
  dkim: z.array(z.object({ domain: z.string(), result: z.string(), selector: z.string().nullable() })),
  spf: z.array(z.object({ domain: z.string(), result: z.string(), scope: z.string().nullable() })),
});
const report = z.object({
  object: z.literal('dmarc_report'),
  id: z.string(),
  domain_id: z.string(),
  status: z.enum(['parsed', 'failed']),
  error: z.string().nullable(),
  org_name: z.string().nullable(),
  email: z.string().nullable(),
  report_id: z.string().nullable(),
  date_range: z.object({ begin: z.string(), end: z.string().nullable() }).nullable(),
  policy_published: z
    .object({
      domain: z.string(),
      adkim: z.string().nullable(),
      aspf: z.string().nullable(),
      p: z.string().nullable(),
      sp: z.string().nullable(),
      pct: z.number().nullable(),
    })
    .nullable(),
  message_count: z.number().int(),
  received_at: z.string(),
  records: z.array(
    z.object({
      source_ip: z.string(),
      count: z.number().int(),
      disposition: z.string(),
      dkim: z.string(),
      spf: z.string(),
      header_from: z.string(),
      envelope_from: z.string().nullable(),
      auth_results: authResults,
    }),
  ),
});
const summary = z.object({
  object: z.literal('dmarc_summary'),
  domain_id: z.string(),
  from: z.string(),
  to: z.string(),
  messages: z.number().int(),
  spf_aligned_rate: rate,
  dkim_aligned_rate: rate,
  dmarc_pass_rate: rate,
  sources: z.array(
    z.object({
      ip: z.string(),
      count: z.number().int(),
      spf_aligned_rate: rate,
      dkim_aligned_rate: rate,
      dmarc_pass_rate: rate,
      ours: z.boolean(),
    }),
  ),
  days: z.array(z.object({ date: z.string(), count: z.number().int(), dmarc_pass: z.number().int() })),
  unknown_senders: z.array(z.object({ ip: z.string(), count: z.number().int(), failed: z.number().int() })),
});

const summaryQuery = z
  .object({
    days: z
      .string()
      .regex(/^\d+$/, 'must be an integer from 1 to 366')
      .transform(Number)
      .pipe(z.number().int().min(1, 'must be an integer from 1 to 366').max(366, 'must be an integer from 1 to 366'))
      .optional(),
    from: dateOrInstantParam('start').optional(),
    to: dateOrInstantParam('end').optional(),
  })
  .strict()
  .superRefine((value, ctx) => {
    if (value.days !== undefined && (value.from || value.to))
      ctx.addIssue({ code: 'custom', path: ['days'], message: 'days cannot be used with from or to' });
    if (value.from && value.to && value.to < value.from)
      ctx.addIssue({ code: 'custom', path: ['to'], message: 'to is before from' });
  });

export const dmarcReportRoutes = [
  defineRoute({
    method: 'GET',
    path: '/domains/:domain_id/dmarc-reports',
    operationId: 'listDomainDmarcReports',
    summary: 'List the DMARC aggregate reports received for the domain, newest first, with their records',
    tag,
    permission: 'full_access',
    scope: 'domains:read',
    params,
    query: withPageRules(z.object({ ...pageQueryShape }).strict()),
    isolation,
    responses: { 200: { description: 'A page of reports', schema: listSchema(report) } },
    handler: async ({ params, query, caller, services }) => {
      const { reports, hasMore } = await services.dmarcReports.list(caller.team.id, params.domain_id, query);
      return { status: 200, body: listEnvelope(reports.map(serializeDmarcReport), hasMore) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/domains/:domain_id/dmarc-reports/summary',
    operationId: 'getDomainDmarcSummary',
    summary:
      "What the domain's DMARC reports add up to over a period (default the last 30 days): sources, daily volumes, alignment pass rates, unknown senders",
    tag,
    permission: 'full_access',
    scope: 'domains:read',
    params,
    query: summaryQuery,
    isolation,
    responses: { 200: { description: 'The summary', schema: summary } },
    handler: async ({ params, query, caller, services }) => ({
      status: 200,
      body: serializeDmarcSummary(
        params.domain_id,
        await services.dmarcReports.summary(caller.team.id, params.domain_id, query),
      ),
    }),
  }),
];
