import { z } from 'zod';
import { defineRoute } from '../route.js';

const count = z.number().int().nonnegative();
const instant = z.string().describe('ISO 8601 timestamp (UTC)');

const emailPeriod = (limit: z.ZodType, period: string) =>
  z
    .object({
      used: count.describe(`transactional emails ${period}: what the quota counts (received mail does not count)`),
      limit,
      sent: count.describe(`transactional emails accepted ${period} (broadcasts are on the marketing meter)`),
      received: count.describe(`received emails kept ${period}`),
      resets_at: instant.describe('when the period restarts'),
    })
    .strict();

/** GET /usage, the shape of the `resend` SDK's usage.get(); see core/platform/usage/usage-snapshot.ts. */
export const usageSchema = z
  .object({
    object: z.literal('usage'),
    generated_at: instant.describe('when this snapshot was taken'),
    emails: z
      .object({
        daily: emailPeriod(count.nullable().describe("the plan's daily cap; null: none"), 'since 00:00 UTC'),
        monthly: emailPeriod(
          count.describe("the plan's included emails (a hard cap on the free plan)"),
          'this UTC month',
        ),
      })
      .strict(),
    contacts: z.object({ used: count, limit: count }).strict(),
    segments: z.object({ used: count, limit: z.null().describe('no segment limit') }).strict(),
    broadcasts: z.object({ used: count, limit: z.null() }).strict(),
    ai_credits: z
      .object({
        used: count.describe('AI credits spent this UTC month'),
        limit: count,
        next_increase_at: instant.describe('the next month’s start, when the credits are granted again'),
      })
      .strict(),
    automation_runs: z
      .object({ used: count.describe('runs started this UTC month'), limit: count, resets_at: instant })
      .strict(),
    domains: z.object({ used: count, limit: count }).strict(),
    rate_limit: z
      .object({
        limit: count.describe('API requests per team per duration'),
        duration: z.string().describe("the window, as the SDK shows it: '1000ms'"),
      })
      .strict(),
  })
  .strict();

export const usageRoutes = [
  defineRoute({
    method: 'GET',
    path: '/usage',
    operationId: 'getUsage',
    summary: 'What the plan counts this day and month (emails, contacts, AI credits, runs, ...) against its limits',
    tag: 'billing',
    permission: 'full_access',
    scope: 'billing:read',
    responses: { 200: { description: 'The usage object', schema: usageSchema } },
    handler: async ({ caller, services }) => ({ status: 200, body: await services.usageSnapshot.get(caller.team) }),
  }),
];
