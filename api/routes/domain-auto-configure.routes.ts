import { z } from 'zod';
import { defineRoute } from '../route.js';
import { uuidParam } from '../schemas.js';
import { serializeDomain } from '../serializers/domain.serializer.js';

const record = z.object({
  record: z.string(),
  name: z.string(),
  type: z.string(),
  ttl: z.string(),
  status: z.string(),
  value: z.string(),
  priority: z.number().optional(),
});
const domainDetail = z
  .object({
    object: z.literal('domain'),
    id: z.string(),
    name: z.string(),
    status: z.string(),
    managed: z.boolean(),
    records: z.array(record),
  })
  .passthrough();

/**
 * Auto-configure (issue 23): the appliance publishes the domain's records in the operator's own
 * zone by DNS UPDATE (RFC 2136, TSIG), then verifies them. Beside the domain routes, in its own
 * file: the zones it may update are operator configuration (dns.updateZones).
 */
export const domainAutoConfigureRoutes = [
  defineRoute({
    method: 'POST',
    path: '/domains/:domain_id/auto-configure',
    operationId: 'autoConfigureDomain',
    summary: "Publish the domain's records by DNS UPDATE in a zone the operator configured, then verify",
    tag: 'domains',
    permission: 'full_access',
    scope: null,
    params: z.object({ domain_id: uuidParam('Domain id') }),
    isolation: { param: 'domain_id', resource: 'domain' },
    responses: {
      200: { description: 'Published and checked; the domain is managed from now on', schema: domainDetail },
    },
    handler: async ({ params, caller, services }) => ({
      status: 200,
      body: serializeDomain(await services.domainAutoConfigure.autoConfigure(caller.team.id, params.domain_id)),
    }),
  }),
];
