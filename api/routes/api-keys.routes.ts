import { z } from 'zod';
import {
  createApiKeySchema,
  listApiKeysQuerySchema,
  renameApiKeySchema,
} from '../../core/platform/api-keys/api-key.schemas.js';
import { listEnvelope } from '../../core/shared/pagination/list-query.js';
import { answeredId, auditEvent } from '../audit-events.js';
import { defineRoute } from '../route.js';
import { deletedSchema, listSchema, uuidParam } from '../schemas.js';
import { serializeApiKey } from '../serializers/api-key.serializer.js';

const apiKeyItem = z.object({
  object: z.literal('api_key'),
  id: z.string(),
  name: z.string(),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
  permission: z.enum(['full_access', 'sending_access']),
  domain_id: z.string().nullable(),
  key_prefix: z.string(),
  status: z.enum(['active', 'revoked', 'suspended']),
  last_used_request_log_id: z.string().nullable(),
});
const keyParams = z.object({ api_key_id: uuidParam('API key id') });
const tag = 'api-keys';

export const apiKeyRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api-keys',
    operationId: 'createApiKey',
    summary: 'Create an API key; the token is returned once',
    tag,
    permission: 'full_access',
    scope: null,
    body: createApiKeySchema,
    exampleBody: { name: 'Production' },
    responses: { 201: { description: 'Created', schema: z.object({ id: z.string(), token: z.string() }) } },
    audit: ({ body }, result) =>
      auditEvent('api_key.created', 'api_key', answeredId(result), {
        name: body.name,
        permission: body.permission ?? 'full_access',
        domain_id: body.domain_id ?? null,
      }),
    handler: async ({ body, caller, services }) => ({
      status: 201,
      body: await services.apiKeys.create(caller.team.id, body),
    }),
  }),
  defineRoute({
    method: 'GET',
    path: '/api-keys',
    operationId: 'listApiKeys',
    summary: 'List API keys (never their tokens)',
    tag,
    permission: 'full_access',
    scope: null,
    query: listApiKeysQuerySchema,
    responses: { 200: { description: 'A page of keys', schema: listSchema(apiKeyItem) } },
    handler: async ({ query, caller, services }) => {
      const { keys, hasMore } = await services.apiKeys.list(caller.team.id, query);
      return { status: 200, body: listEnvelope(keys.map(serializeApiKey), hasMore) };
    },
  }),
  defineRoute({
    method: 'PATCH',
    path: '/api-keys/:api_key_id',
    operationId: 'updateApiKey',
    summary: 'Rename an API key',
    tag,
    permission: 'full_access',
    scope: null,
    params: keyParams,
    body: renameApiKeySchema,
    exampleBody: { name: 'Renamed' },
    isolation: { param: 'api_key_id', resource: 'api_key' },
    responses: { 200: { description: 'Renamed', schema: z.object({ object: z.literal('api_key'), id: z.string() }) } },
    audit: ({ params, body }) => auditEvent('api_key.renamed', 'api_key', params.api_key_id, { name: body.name }),
    handler: async ({ params, body, caller, services }) => {
      const key = await services.apiKeys.rename(caller.team.id, params.api_key_id, body.name);
      return { status: 200, body: { object: 'api_key', id: key.id } };
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/api-keys/:api_key_id',
    operationId: 'deleteApiKey',
    summary: 'Revoke an API key (the row is kept; later use answers 403)',
    tag,
    permission: 'full_access',
    scope: null,
    params: keyParams,
    isolation: { param: 'api_key_id', resource: 'api_key' },
    responses: { 200: { description: 'Revoked', schema: deletedSchema('api_key') } },
    audit: ({ params }) => auditEvent('api_key.revoked', 'api_key', params.api_key_id),
    handler: async ({ params, caller, services }) => {
      const key = await services.apiKeys.revoke(caller.team.id, params.api_key_id);
      return { status: 200, body: { object: 'api_key', id: key.id, deleted: true } };
    },
  }),
];
