import { z } from 'zod';
import { metricsQuerySchema } from '../../../core/events/metrics/metric-query.schemas.js';
import { DIMENSIONS, GRANULARITIES, METRICS } from '../../../core/events/metrics/metric.types.js';
import { defineRoute } from '../../route.js';
import { serializeMetrics } from '../../serializers/metrics.serializer.js';

const values = z.record(z.enum(METRICS as [string, ...string[]]), z.number());
const row = values.and(
  z.object({
    period: z.string().optional(),
    domain_id: z.string().nullable().optional(),
    domain_name: z.string().nullable().optional(),
    email_id: z.string().nullable().optional(),
    broadcast_id: z.string().nullable().optional(),
    broadcast_name: z.string().nullable().optional(),
  }),
);
const metricsResponse = z.object({
  object: z.literal('metrics'),
  start_date: z.string(),
  end_date: z.string(),
  metrics: z.array(z.enum(METRICS as [string, ...string[]])),
  dimensions: z.array(z.enum(DIMENSIONS)),
  granularity: z.enum(GRANULARITIES),
  totals: values,
  data_as_of: z.string().nullable(),
  data: z.array(row).optional(),
});

/**
 * GET /emails/metrics. Account-wide reporting, so full_access (a sending_access key reaches
 * sending only); for OAuth tokens, the read scope of emails. `/emails/metrics` is matched
 * before `/emails/:email_id`: the router prefers literal segments.
 */
export const metricRoutes = [
  defineRoute({
    method: 'GET',
    path: '/emails/metrics',
    operationId: 'getEmailMetrics',
    summary: 'Delivery and engagement metrics from one-minute buckets, by period, domain, email or broadcast',
    tag: 'emails',
    permission: 'full_access',
    scope: 'emails:read',
    query: metricsQuerySchema,
    responses: {
      200: { description: 'Totals over the range, and rows per dimension when asked', schema: metricsResponse },
    },
    handler: async ({ query, caller, services }) => ({
      status: 200,
      body: serializeMetrics(await services.metrics.report(caller.team, query)),
    }),
  }),
];
