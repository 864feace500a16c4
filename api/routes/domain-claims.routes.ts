import { z } from 'zod';
import { createDomainSchema } from '../../core/sending/domains/domain.schemas.js';
import { CLAIM_STATUSES, BLOCKED_REASONS } from '../../core/sending/domains/claims/domain-claim.types.js';
import { publicDomainClaim } from '../../core/sending/domains/claims/domain-claim.shape.js';
import { REGIONS } from '../../core/platform/teams/team.types.js';
import { defineRoute } from '../route.js';
import { uuidParam } from '../schemas.js';
import { auditEvent } from '../audit-events.js';

/** Claims on a domain name another team verified: the `resend` SDK's domains.claims.* calls. */
const tag = 'domains';
const params = z.object({ domain_id: uuidParam('The placeholder domain the claim created') });
const isolation = { param: 'domain_id', resource: 'domain_claim' };
const claimSchema = z.object({
  object: z.literal('domain_claim'),
  id: z.string(),
  name: z.string(),
  status: z.enum(CLAIM_STATUSES),
  domain_id: z.string().nullable(),
  region: z.enum(REGIONS).nullable(),
  record: z.object({ type: z.literal('TXT'), name: z.string(), value: z.string(), ttl: z.literal('Auto') }),
  blocked_reason: z.enum(BLOCKED_REASONS).nullable(),
  failure_reason: z.string().nullable(),
  created_at: z.string(),
  expires_at: z.string(),
});

export const domainClaimRoutes = [
  defineRoute({
    method: 'POST',
    path: '/domains/claim',
    operationId: 'createDomainClaim',
    summary: 'Claim a domain name another team verified; answers the TXT record that proves control',
    tag,
    permission: 'full_access',
    scope: null,
    body: createDomainSchema,
    exampleBody: { name: 'mail.example.com' },
    responses: {
      201: { description: 'Claim started, with a placeholder domain holding fresh DKIM keys', schema: claimSchema },
      200: { description: 'An identical claim was already running: returned unchanged', schema: claimSchema },
    },
    // 200 answers a claim already running: nothing new happened.
    audit: (_ctx, result) => {
      if (result.status !== 201) return null;
      const claim = result.body as { id: string; domain_id: string; name: string };
      return auditEvent('domain.claim_started', 'domain', claim.domain_id, { name: claim.name, claim_id: claim.id });
    },
    handler: async ({ body, caller, services }) => {
      const { claim, created } = await services.domainClaims.create(caller.team, body);
      return { status: created ? 201 : 200, body: publicDomainClaim(claim) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/domains/:domain_id/claim',
    operationId: 'getDomainClaim',
    summary: 'Retrieve the latest claim made through a placeholder domain',
    tag,
    permission: 'full_access',
    scope: null,
    params,
    isolation,
    responses: { 200: { description: 'The claim', schema: claimSchema } },
    handler: async ({ params, caller, services }) => ({
      status: 200,
      body: publicDomainClaim(await services.domainClaims.get(caller.team.id, params.domain_id)),
    }),
  }),
  defineRoute({
    method: 'POST',
    path: '/domains/:domain_id/claim/verify',
    operationId: 'verifyDomainClaim',
    summary: 'Look for the claim TXT record (asynchronously: poll the claim for its status)',
    tag,
    permission: 'full_access',
    scope: null,
    params,
    isolation,
    responses: { 200: { description: 'Check requested; the claim as it stands', schema: claimSchema } },
    audit: ({ params }) => auditEvent('domain.claim_verification_requested', 'domain', params.domain_id),
    handler: async ({ params, caller, services }) => ({
      status: 200,
      body: publicDomainClaim(await services.domainClaims.verify(caller.team.id, params.domain_id)),
    }),
  }),
];
