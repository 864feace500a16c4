import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { hasScope, type Caller } from '../../core/platform/auth/caller.js';
import { AppError, InvalidPermissionError } from '../../lib/errors.js';
import { VERSION } from '../../lib/version.js';
import type { InProcessResponse } from './in-process-dispatch.js';
import { toolRequest, type McpTool, type ToolRequest } from './mcp-tools.js';

export type McpServerOptions = {
  tools: readonly McpTool[];
  caller: Caller;
  /** Sends a tool's request through the API, with the MCP request's credential. */
  send: (request: ToolRequest) => Promise<InProcessResponse>;
  /**
   * Takes a token of the team's rate limit for a call refused before its route (which would have
   * taken one): the refusal when the bucket is empty, else null.
   */
  charge: () => Promise<AppError | null>;
};

const INSTRUCTIONS =
  'Mailroom, a self-hosted mail appliance. Each tool is one call of its REST API, with the same ' +
  'validation and errors: a refusal comes back as isError with the API error body ' +
  '(statusCode, name, message, errors). The tools listed are those the access token’s scopes allow.';

/**
 * One MCP server per HTTP request (stateless Streamable HTTP). The low-level Server rather than
 * McpServer: McpServer validates arguments with its own zod schemas before the handler, which
 * would be a second validation with other errors; here the route's schema is the only one.
 */
export function createMcpServer(options: McpServerOptions): Server {
  const server = new Server(
    { name: 'mailroom', title: 'Mailroom', version: VERSION },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: options.tools
      .filter((tool) => hasScope(options.caller, tool.route.scope))
      .map((tool) => ({
        name: tool.name,
        title: tool.title,
        description: tool.description,
        inputSchema: tool.inputSchema,
        annotations: { readOnlyHint: tool.route.method === 'GET', openWorldHint: tool.route.method !== 'GET' },
      })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = options.tools.find((candidate) => candidate.name === request.params.name);
    if (!tool) {
      const limited = await options.charge();
      if (limited) return toolResult(true, limited.toBody(), undefined);
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    }
    let dispatched = false;
    try {
      // Checked here too (the pipeline would refuse the same) for a message that names the tool.
      if (!hasScope(options.caller, tool.route.scope)) {
        throw new InvalidPermissionError(
          tool.route.scope
            ? `This access token lacks the scope ${tool.route.scope}, which ${tool.name} needs`
            : `${tool.name} is not reachable with an OAuth access token`,
        );
      }
      const toolCall = toolRequest(tool, request.params.arguments ?? {});
      dispatched = true;
      const response = await options.send(toolCall);
      return toolResult(response.status >= 400, response.body, response.requestId);
    } catch (err) {
      if (!(err instanceof AppError) || dispatched) throw err;
      return toolResult(true, ((await options.charge()) ?? err).toBody(), undefined);
    }
  });
  return server;
}

/** The API's answer as the tool's: its JSON as text, and as structured content when an object. */
function toolResult(isError: boolean, body: unknown, requestId: string | undefined): CallToolResult {
  const structured = body !== null && typeof body === 'object' && !Array.isArray(body);
  return {
    content: [{ type: 'text', text: JSON.stringify(body) }],
    ...(structured ? { structuredContent: body as Record<string, unknown> } : {}),
    ...(isError ? { isError: true } : {}),
    // The id the request log holds for this call.
    ...(requestId ? { _meta: { 'mailroom/request_id': requestId } } : {}),
  };
}
