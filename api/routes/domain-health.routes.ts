import { z } from 'zod';
import { bindZoneSnippet } from '../../core/platform/doctor/bind-zone.js';
import { defineRoute } from '../route.js';
import { uuidParam } from '../schemas.js';
import { serializeDomainHealth } from '../serializers/domain-health.serializer.js';

/**
 * What the dashboard's domain page shows beside the domain itself: the doctor's checks of its DNS
 * now, and its records as a zone-file snippet to paste. Reads, so the domains:read scope.
 */
const tag = 'domains';
const params = z.object({ domain_id: uuidParam('Domain id') });
const isolation = { param: 'domain_id', resource: 'domain' };
const status = z.enum(['pass', 'warn', 'fail']);
const health = z.object({
  object: z.literal('domain_health'),
  domain_id: z.string(),
  name: z.string(),
  status,
  checked_at: z.string(),
  checks: z.array(
    z.object({ id: z.string(), label: z.string(), status, detail: z.string(), fix: z.string().optional() }),
  ),
});

export const domainHealthRoutes = [
  defineRoute({
    method: 'GET',
    path: '/domains/:domain_id/health',
    operationId: 'getDomainHealth',
    summary: "Check the domain's DNS now (the checks of mailroom doctor): SPF, DKIM, DMARC, MX, tracking",
    tag,
    permission: 'full_access',
    scope: 'domains:read',
    params,
    isolation,
    responses: { 200: { description: 'Each check with its outcome and what to do', schema: health } },
    handler: async ({ params, caller, services }) => ({
      status: 200,
      body: serializeDomainHealth(await services.domainHealth.check(caller.team.id, params.domain_id)),
    }),
  }),
  defineRoute({
    method: 'GET',
    path: '/domains/:domain_id/zone',
    operationId: 'getDomainZone',
    summary: "The domain's DNS records as a BIND zone-file snippet (what mailroom dns-zone prints)",
    tag,
    permission: 'full_access',
    scope: 'domains:read',
    params,
    isolation,
    responses: { 200: { description: 'The zone-file snippet', contentType: 'text/plain' } },
    handler: async ({ params, caller, services }) => {
      const { domain, records } = await services.domains.get(caller.team.id, params.domain_id);
      const text = bindZoneSnippet(
        domain,
        records,
        services.tlsReports.ruaAddress,
        services.dmarcReports.recordValue(domain),
      );
      return { status: 200, raw: { contentType: 'text/plain; charset=utf-8', bytes: Buffer.from(text, 'utf8') } };
    },
  }),
];
