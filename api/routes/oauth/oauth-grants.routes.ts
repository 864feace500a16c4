import { z } from 'zod';
import { listEnvelope, pageQueryShape, withPageRules } from '../../../core/shared/pagination/list-query.js';
import { serializeOAuthGrant } from '../../serializers/oauth.serializer.js';
import { defineRoute } from '../../route.js';
import { deletedSchema, listSchema, uuidParam } from '../../schemas.js';

/**
 * The team's approved applications. full_access key only: scope null means no OAuth token
 * reaches them, whatever its scopes (see hasScope), so a token can never revoke its siblings.
 * Ordinary API routes: the service error body.
 */
const tag = 'oauth';
const grantItem = z.object({
  object: z.literal('oauth_grant'),
  id: z.string(),
  client_id: z.string(),
  client_name: z.string(),
  user_id: z.string().nullable(),
  scopes: z.array(z.string()),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
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
    responses: { 200: { description: 'Revoked', schema: deletedSchema('oauth_grant') } },
    handler: async ({ params, caller, services }) => {
      await services.oauthGrants.revoke(caller.team.id, params.grant_id);
      return { status: 200, body: { object: 'oauth_grant', id: params.grant_id, deleted: true } };
    },
  }),
];
