import { z } from 'zod';
import { NotFoundError } from '../../lib/errors.js';
import { defineRoute } from '../route.js';

/** The MCP endpoint, relative to either base (spec: "The `/mcp` route takes only an OAuth access token"). */
export const MCP_PATH = '/mcp';

const jsonRpc = z.record(z.string(), z.unknown()).describe('A JSON-RPC 2.0 message of the Model Context Protocol');

/**
 * /mcp in the route table, so the OpenAPI document lists it (area "mcp") with x-svc-scope null:
 * no single scope reaches it, each tool needs its own route's. Permission null: no API key
 * reaches it. mcp.middleware.ts answers every /mcp request before the pipeline, so this handler
 * is never called; were the middleware not mounted, the pipeline would refuse keys and a token
 * would be told the route is not there.
 */
export const mcpRoutes = [
  defineRoute({
    method: 'POST',
    path: MCP_PATH,
    operationId: 'mcp',
    summary:
      'Model Context Protocol server (Streamable HTTP, stateless, JSON responses). OAuth access tokens only; ' +
      'the tools listed are those the token’s scopes reach, each a call of the REST route it names.',
    tag: 'mcp',
    permission: null,
    scope: null,
    body: jsonRpc,
    responses: {
      200: { description: 'The JSON-RPC response', schema: jsonRpc },
      202: { description: 'A notification or response accepted' },
    },
    handler: async () => {
      throw new NotFoundError('Route not found');
    },
  }),
];
