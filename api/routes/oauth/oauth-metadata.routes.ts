import { z } from 'zod';
import { MCP_PATH } from '../../mcp/mcp.routes.js';
import { defineRoute } from '../../route.js';

/** Discovery documents (RFC 8414, RFC 9728): public, on both bases; the issuer is the public URL. */
const tag = 'oauth';
const document = { description: 'Metadata document', schema: z.record(z.string(), z.unknown()) };

export const oauthMetadataRoutes = [
  defineRoute({
    method: 'GET',
    path: '/.well-known/oauth-authorization-server',
    operationId: 'oauthAuthorizationServerMetadata',
    summary: 'OAuth authorization server metadata (RFC 8414)',
    tag,
    permission: 'none',
    scope: null,
    responses: { 200: document },
    handler: async ({ services }) => ({ status: 200, body: services.oauthMetadata.authorizationServer() }),
  }),
  defineRoute({
    method: 'GET',
    path: '/.well-known/oauth-protected-resource',
    operationId: 'oauthProtectedResourceMetadata',
    summary: 'OAuth protected resource metadata (RFC 9728) of the REST API: its resource is the public URL',
    tag,
    permission: 'none',
    scope: null,
    responses: { 200: document },
    handler: async ({ services }) => ({ status: 200, body: services.oauthMetadata.protectedResource('api') }),
  }),
  // The MCP route's own document: MCP clients look for the path-suffixed one first, and /mcp's
  // WWW-Authenticate names it (its `resource` is exactly the URL they called).
  defineRoute({
    method: 'GET',
    path: `/.well-known/oauth-protected-resource${MCP_PATH}`,
    operationId: 'oauthProtectedResourceMetadataMcp',
    summary: 'OAuth protected resource metadata (RFC 9728) of the MCP server: its resource is <public URL>/mcp',
    tag,
    permission: 'none',
    scope: null,
    responses: { 200: document },
    handler: async ({ services }) => ({ status: 200, body: services.oauthMetadata.protectedResource('mcp') }),
  }),
];
