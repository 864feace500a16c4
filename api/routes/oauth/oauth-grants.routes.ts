import { z } from 'zod';
import { listEnvelope, pageQueryShape, withPageRules } from '../../../core/shared/pagination/list-query.js';
import { serializeOAuthGrant, serializeOAuthGrantRevoked } from '../../serializers/oauth.serializer.js';
import { defineRoute } from '../../route.js';
import { listSchema, uuidParam } from '../../schemas.js';
import { auditEvent } from '../../audit-events.js';

/**
 * The team's approved applications. full_access key only: scope null means no OAuth token
 * reaches them, whatever its scopes (see hasScope), so a token can never revoke its siblings.
 * Ordinary API routes: the service error body. The shapes are the resend SDK's (`oauthGrants`):
 * the client as `client { name, logo_uri }`, a revoke answering `revoked_at` and `revoked_reason`.
 */
const tag = 'oauth';
const grantItem = z.object({
  object: z.literal('oauth_grant'),
  id: z.string(),
  client_id: z.string(),
  client: z.object({ name: z.string(), logo_uri: z.string().nullable() }),
  user_id: z.string().nullable(),
  scopes: z.array(z.string()),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
  revoked_reason: z.string().nullable(),
});
const revokedSchema = z.object({
  object: z.literal('oauth_grant'),
  id: z.string(),
  revoked_at: z.string(),
  revoked_reason: z.string(),
});

export const oauthGrantRoutes = [
  defineRoute({
    method: 'GET',
    path: '/oauth/grants',
    operationId: 'listOAuthGrants',
    summary: 'List the applications this team approved (live grants), newest first',
    tag,
    permission: 'full_access',
    scope: null,
    query: withPageRules(z.object(pageQueryShape).strict()),
    responses: { 200: { description: 'A page of grants', schema: listSchema(grantItem) } },
    handler: async ({ query, caller, services }) => {
      const { grants, hasMore } = await services.oauthGrants.list(caller.team.id, query);
      return { status: 200, body: listEnvelope(grants.map(serializeOAuthGrant), hasMore) };
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/oauth/grants/:grant_id',
    operationId: 'revokeOAuthGrant',
    summary: 'Revoke a grant: every access and refresh token under it stops at once',
    tag,
    permission: 'full_access',
    scope: null,
    params: z.object({ grant_id: uuidParam('OAuth grant id') }),
    isolation: { param: 'grant_id', resource: 'oauth_grant' },
    responses: { 200: { description: 'Revoked', schema: revokedSchema } },
    audit: ({ params }) => auditEvent('oauth_grant.revoked', 'oauth_grant', params.grant_id),
    handler: async ({ params, caller, services }) => {
      const revoked = await services.oauthGrants.revoke(caller.team.id, params.grant_id);
      return { status: 200, body: serializeOAuthGrantRevoked(revoked) };
    },
  }),
];
