import { z } from 'zod';
import { utcDay } from '../../../core/sending/shaping/ip-warmup.service.js';
import { NotFoundError, UnprocessableValidationError, ValidationError } from '../../../lib/errors.js';
import { defineRoute } from '../../route.js';
import { serializeWarmup, warmupShape } from '../../serializers/shaping.serializer.js';

const tag = 'admin';
const DAY_MS = 86_400_000;

const addressParams = z.object({
  address: z.string().min(2).max(64).describe('an egress address of an IP pool'),
});

const isCalendarDay = (value: string) =>
  /^\d{4}-\d{2}-\d{2}$/.test(value) && new Date(`${value}T00:00:00Z`).toISOString().startsWith(value);

const startBody = z
  .object({
    started_on: z
      .string()
      .refine(isCalendarDay, 'must be a date YYYY-MM-DD')
      .optional()
      .describe('day 1 of the schedule (UTC; today or earlier); default: today'),
    day: z.number().int().min(1).max(366).optional().describe('join the schedule on this day (1: today is day 1)'),
  })
  .strict()
  .refine((b) => b.started_on === undefined || b.day === undefined, {
    message: 'give started_on or day, not both',
    path: ['day'],
  });

/** Which day the schedule starts on: the body's date, or today moved back to make today day N. */
function startedOn(body: { started_on?: string; day?: number } | undefined, now: Date): string {
  const today = utcDay(now);
  if (body?.day !== undefined) return utcDay(new Date(now.getTime() - (body.day - 1) * DAY_MS));
  const given = body?.started_on ?? today;
  // A later day would mean "no limit until then": the schedule only counts from day 1.
  if (given > today) throw new UnprocessableValidationError(`started_on ${given} is in the future (today is ${today})`);
  return given;
}

/**
 * IP warm-up (issue 36): progress of every warming address, and the operator's start and stop.
 * `mailroom ip warmup status|start|stop` does the same.
 */
export const adminIpWarmupRoutes = [
  defineRoute({
    method: 'GET',
    path: '/admin/ips/warmup',
    operationId: 'adminListIpWarmups',
    summary: 'Warm-up progress of every warming address: day N of M, sent today against the allowance per provider',
    tag,
    permission: 'operator',
    scope: null,
    responses: {
      200: {
        description: 'Warming addresses, by address',
        schema: z.object({ object: z.literal('list'), has_more: z.literal(false), data: z.array(warmupShape) }),
      },
    },
    handler: async ({ services }) => {
      const { providers, warmup } = services.shaping;
      const statuses = await warmup.status(providers.all().map((rule) => rule.name));
      return { status: 200, body: { object: 'list', has_more: false, data: statuses.map(serializeWarmup) } };
    },
  }),
  defineRoute({
    method: 'PUT',
    path: '/admin/ips/:address/warmup',
    operationId: 'adminStartIpWarmup',
    summary:
      'Start (or restart on another day) the warm-up of a pool address; it takes no more than its day\u2019s allowance',
    tag,
    permission: 'operator',
    scope: null,
    params: addressParams,
    body: startBody,
    exampleBody: { day: 1 },
    responses: {
      200: { description: 'The address is warming: its status', schema: warmupShape },
      400: {
        description:
          'validation_error: the body is malformed (a date that is not YYYY-MM-DD, started_on and day both given)',
      },
      422: {
        description:
          'validation_error: the address is in no IP pool (the message names the pool addresses), or started_on is in the future',
      },
    },
    handler: async ({ params, body, services }) => {
      let address: string;
      try {
        address = services.operatorConsole.pooled(params.address).address;
      } catch (err) {
        if (err instanceof ValidationError) throw new UnprocessableValidationError(err.message);
        throw err;
      }
      const { providers, warmup } = services.shaping;
      await warmup.start(address, startedOn(body, services.operatorConsole.now()));
      const statuses = await warmup.status(providers.all().map((rule) => rule.name));
      return { status: 200, body: serializeWarmup(statuses.find((s) => s.address === address)!) };
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/admin/ips/:address/warmup',
    operationId: 'adminStopIpWarmup',
    summary: 'Stop the warm-up of an address: it sends at its pool share again',
    tag,
    permission: 'operator',
    scope: null,
    params: addressParams,
    responses: {
      200: {
        description: 'Stopped',
        schema: z.object({ object: z.literal('ip_warmup'), address: z.string(), deleted: z.literal(true) }),
      },
      404: { description: 'not_found: the address is not warming' },
    },
    handler: async ({ params, services }) => {
      // Not checked against the pools: an address taken out of them can still be stopped.
      const address = params.address.trim();
      if (!(await services.shaping.warmup.stop(address)))
        throw new NotFoundError(`${address} is not warming up: GET /admin/ips/warmup lists the warming addresses.`);
      return { status: 200, body: { object: 'ip_warmup', address, deleted: true } };
    },
  }),
];
