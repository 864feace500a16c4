import { z } from 'zod';
import { defineRoute } from '../route.js';
import { domainDetail } from './domain-shapes.js';
import { uuidParam } from '../schemas.js';
import { serializeDomain } from '../serializers/domain.serializer.js';
import { auditEvent } from '../audit-events.js';

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
    audit: ({ params }) => auditEvent('domain.auto_configured', 'domain', params.domain_id),
    handler: async ({ params, caller, services }) => ({
      status: 200,
      body: serializeDomain(await services.domainAutoConfigure.autoConfigure(caller.team.id, params.domain_id)),
    }),
  }),
];
