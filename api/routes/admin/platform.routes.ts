import { z } from 'zod';
import { isDomainName } from '../../../app/operator/queue-filter.js';
import { ValidationError } from '../../../lib/errors.js';
import { defineRoute } from '../../route.js';

const tag = 'admin';
const instant = z.string().describe('ISO 8601 timestamp (UTC)');
const status = z.enum(['ok', 'warn', 'fail']);

const marketingShape = z.object({
  object: z.literal('marketing'),
  marketing: z.enum(['enabled', 'paused']),
  source: z.string(),
});

const addressParams = z.object({
  address: z.string().min(2).max(64).describe('an egress address of an IP pool'),
});

const poolsShape = z.object({
  object: z.literal('ip_pools'),
  generated_at: instant,
  regions: z.array(
    z.object({
      region: z.string(),
      addresses: z.array(
        z.object({
          address: z.string(),
          helo: z.string(),
          weight: z.number(),
          in_use: z.boolean(),
          disabled_in_config: z.boolean(),
          disabled_by_operator: z.object({ reason: z.string().nullable(), since: instant }).nullable(),
          ptr: z.object({ status, detail: z.string() }).nullable(),
          rests: z.array(
            z.object({ destination: z.string(), strikes: z.number(), until: instant, reason: z.string().nullable() }),
          ),
        }),
      ),
    }),
  ),
});

/** `dnsbl_zones=a,b` (empty: none), each a DNS zone name; absent: doctor.dnsblZones. */
function parseZones(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const zones = value
    .split(',')
    .map((zone) => zone.trim().toLowerCase())
    .filter(Boolean);
  for (const zone of zones)
    if (!isDomainName(zone)) throw new ValidationError(`dnsbl_zones: "${zone}" is not a DNS zone name`);
  return zones;
}

/** The egress pools, deliverability (`mailroom doctor`) and the platform's broadcast switch. */
export const adminPlatformRoutes = [
  defineRoute({
    method: 'GET',
    path: '/admin/ip-pools',
    operationId: 'adminListIpPools',
    summary:
      'Every pool address per region: HELO, weight, in use or disabled, rests per destination (check_ptr: reverse DNS)',
    tag,
    permission: 'operator',
    scope: null,
    query: z.object({ check_ptr: z.enum(['true', 'false']).default('false') }).strict(),
    responses: { 200: { description: 'The pools', schema: poolsShape } },
    handler: async ({ query, services }) => ({
      status: 200,
      body: {
        object: 'ip_pools',
        generated_at: services.operatorConsole.now().toISOString(),
        regions: await services.operatorConsole.ipPools(query.check_ptr === 'true'),
      },
    }),
  }),
  defineRoute({
    method: 'POST',
    path: '/admin/ip-pools/addresses/:address/disable',
    operationId: 'adminDisableEgressAddress',
    summary: 'Take an address out of every pool on every node until enabled (the rest of its pool keeps sending)',
    tag,
    permission: 'operator',
    scope: null,
    params: addressParams,
    body: z.object({ reason: z.string().trim().min(1).max(500).optional() }).strict(),
    exampleBody: { reason: 'listed on a block list' },
    responses: {
      200: {
        description: 'Disabled',
        schema: z.object({
          object: z.literal('egress_address'),
          address: z.string(),
          regions: z.array(z.string()),
          disabled: z.literal(true),
          reason: z.string(),
        }),
      },
    },
    handler: async ({ params, body, services }) => {
      const done = await services.operatorConsole.disableAddress(
        params.address,
        body?.reason ?? 'disabled by the operator',
      );
      return { status: 200, body: { object: 'egress_address', ...done, disabled: true } };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/admin/ip-pools/addresses/:address/enable',
    operationId: 'adminEnableEgressAddress',
    summary: "Undo the operator's disable; with destination, end the address's rest from that destination instead",
    tag,
    permission: 'operator',
    scope: null,
    params: addressParams,
    body: z
      .object({
        destination: z
          .string()
          .refine(isDomainName, 'must be a domain name such as gmail.com')
          .transform((value) => value.toLowerCase())
          .optional(),
      })
      .strict(),
    exampleBody: {},
    responses: {
      200: {
        description: 'Enabled (or the rest ended)',
        schema: z.object({
          object: z.literal('egress_address'),
          address: z.string(),
          regions: z.array(z.string()),
          destination: z.string().nullable(),
          cleared: z.number(),
          still_disabled_in_config: z.boolean(),
        }),
      },
    },
    handler: async ({ params, body, services }) => {
      const done = await services.operatorConsole.enableAddress(params.address, body?.destination);
      return {
        status: 200,
        body: {
          object: 'egress_address',
          address: done.address,
          regions: done.regions,
          destination: body?.destination ?? null,
          cleared: done.cleared,
          // The configuration's list is not the operator's switch: say so rather than seem to enable it.
          still_disabled_in_config: done.stillDisabledInConfig,
        },
      };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/admin/deliverability',
    operationId: 'adminGetDeliverability',
    summary:
      "mailroom doctor's checks (this node, each egress IP, each verified domain) with the fix of each failure, and block-list listings",
    tag,
    permission: 'operator',
    scope: null,
    query: z.object({ dnsbl_zones: z.string().max(2000).optional() }).strict(),
    responses: {
      200: {
        description: 'The checks',
        schema: z.object({
          object: z.literal('deliverability'),
          generated_at: instant,
          summary: z.object({ ok: z.number(), warn: z.number(), fail: z.number() }),
          checks: z.array(
            z.object({
              check: z.string(),
              subject: z.string(),
              subject_kind: z.enum(['ip', 'domain', 'system']),
              status,
              detail: z.string(),
              fix: z.string().nullable(),
            }),
          ),
          blocklists: z.array(
            z.object({ address: z.string(), zone: z.string(), status, listed: z.boolean(), detail: z.string() }),
          ),
        }),
      },
    },
    handler: async ({ query, services }) => {
      const zones = services.operatorConsole.dnsblZones(parseZones(query.dnsbl_zones));
      const { checks, blocklists } = await services.operatorConsole.deliverability(zones);
      const summary = { ok: 0, warn: 0, fail: 0 };
      for (const entry of checks) summary[entry.status] += 1;
      return {
        status: 200,
        body: {
          object: 'deliverability',
          generated_at: services.operatorConsole.now().toISOString(),
          summary,
          checks: checks.map((entry) => ({
            check: entry.check,
            subject: entry.subject,
            subject_kind: entry.subjectKind,
            status: entry.status,
            detail: entry.detail,
            fix: entry.fix,
          })),
          blocklists,
        },
      };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/admin/marketing',
    operationId: 'adminGetMarketing',
    summary: 'Whether broadcasts may be sent platform-wide, and where that comes from',
    tag,
    permission: 'operator',
    scope: null,
    responses: { 200: { description: 'The switch', schema: marketingShape } },
    handler: async ({ services }) => ({
      status: 200,
      body: { object: 'marketing', ...(await services.operatorConsole.marketing()) },
    }),
  }),
  ...(
    [
      ['pause', false, 'Refuse broadcast sends (403) and hold broadcasts already sending, on every node'],
      ['resume', true, 'Allow broadcast sends again; held broadcasts continue where they stopped'],
    ] as const
  ).map(([action, enabled, summary]) =>
    defineRoute({
      method: 'POST',
      path: `/admin/marketing/${action}`,
      operationId: action === 'pause' ? 'adminPauseMarketing' : 'adminResumeMarketing',
      summary,
      tag,
      permission: 'operator',
      scope: null,
      responses: { 200: { description: 'The switch', schema: marketingShape } },
      handler: async ({ services }) => ({
        status: 200,
        body: { object: 'marketing', ...(await services.operatorConsole.setMarketing(enabled)) },
      }),
    }),
  ),
];
