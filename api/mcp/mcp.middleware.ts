import type { Context, Middleware } from 'koa';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Services } from '../../app/services.js';
import type { Caller } from '../../core/platform/auth/caller.js';
import type { RateDecision } from '../../core/platform/rate-limit/rate-limiter.js';
import { isDependencyDown } from '../../db/errors.js';
import {
  AppError,
  ApplicationError,
  ForbiddenValidationError,
  MethodNotAllowedError,
  RateLimitExceededError,
  ServiceUnavailableError,
} from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import type { Logger } from '../../lib/logger.js';
import { relativePath } from '../pipeline.js';
import type { ReadBody } from '../request-body.js';
import type { RouteDef } from '../route.js';
import type { Dispatch } from './in-process-dispatch.js';
import { authenticateMcp } from './mcp-auth.js';
import { createMcpServer } from './mcp-server.js';
import { toolCatalogue, type McpTool, type ToolRequest } from './mcp-tools.js';
import { MCP_PATH } from './mcp.routes.js';

export type McpMiddlewareOptions = {
  services: Services;
  routes: readonly RouteDef[];
  logger: Logger;
  readBody: (ctx: Context) => Promise<ReadBody>;
  /** The API middleware, run in process: each tool call is a request of its route. */
  dispatch: Dispatch;
};

/**
 * The MCP server at /mcp (both bases): stateless Streamable HTTP with JSON responses, a new
 * server and transport per request, as the SDK documents for servers without sessions. Before
 * the SDK sees a request it passes the API's own gates, in the pipeline's order: User-Agent,
 * credential (OAuth access tokens only), rate limit. Refusals are the spec's error body.
 */
export function mcpMiddleware(options: McpMiddlewareOptions): Middleware {
  const tools = toolCatalogue(options.routes);
  return async (ctx, next) => {
    if (relativePath(ctx.path) !== MCP_PATH) return next();
    const requestId = newId();
    ctx.set('x-request-id', requestId);
    let rate: RateDecision | null = null;
    try {
      if (!ctx.get('user-agent'))
        throw new ForbiddenValidationError('The User-Agent header is required', { code: 1010 });
      const caller = await authenticateMcp(ctx, options.services);
      // Stateless: no server-initiated stream (GET) and no session to end (DELETE).
      if (ctx.method !== 'POST')
        throw new MethodNotAllowedError(`Method ${ctx.method} is not allowed on ${MCP_PATH}`, {
          headers: { allow: 'POST' },
        });
      const { parsed } = await options.readBody(ctx);
      // One token of the team's bucket per request, as the API takes; a tool call's is taken by
      // its route, as that route's request (or by the server, when refused before it).
      if (!onlyToolCalls(parsed)) {
        rate = await options.services.rateLimiter.take({ teamId: caller.team.id });
        const limited = rateRefusal(rate);
        if (limited) throw limited;
      }
      setRateHeaders(ctx, rate);
      await serve(ctx, options, tools, caller, parsed);
    } catch (err) {
      if (!rate) rate = await options.services.rateLimiter.take({ ip: ctx.ip }).catch(() => null);
      refuse(ctx, err, requestId, rate, options.logger);
    }
  };
}

/** Hands the request to the SDK's transport, which writes the answer itself. */
async function serve(
  ctx: Context,
  options: McpMiddlewareOptions,
  tools: readonly McpTool[],
  caller: Caller,
  body: unknown,
): Promise<void> {
  const credentials = {
    authorization: ctx.get('authorization'),
    'user-agent': ctx.get('user-agent'),
    host: ctx.get('host'),
  };
  const send = (request: ToolRequest) =>
    options.dispatch({
      method: request.method,
      url: request.path,
      headers: {
        ...credentials,
        ...(request.idempotencyKey !== undefined ? { 'idempotency-key': request.idempotencyKey } : {}),
      },
      body: request.body,
      ip: ctx.ip,
      audience: 'mcp',
    });
  const charge = async () => rateRefusal(await options.services.rateLimiter.take({ teamId: caller.team.id }));
  const server = createMcpServer({ tools, caller, send, charge });
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  ctx.res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  ctx.respond = false;
  await transport.handleRequest(ctx.req, ctx.res, body);
}

/** A JSON-RPC message, or a batch, made only of tools/call requests. */
function onlyToolCalls(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return (
    messages.length > 0 &&
    messages.every(
      (message) =>
        message !== null && typeof message === 'object' && (message as { method?: unknown }).method === 'tools/call',
    )
  );
}

function rateRefusal(rate: RateDecision): RateLimitExceededError | null {
  if (rate.allowed) return null;
  return new RateLimitExceededError('Too many requests: the limit is shared by all keys of the team', {
    headers: { 'retry-after': String(rate.retryAfterSeconds) },
  });
}

function setRateHeaders(ctx: Context, rate: RateDecision | null): void {
  if (!rate) return;
  ctx.set('ratelimit-limit', String(rate.limit));
  ctx.set('ratelimit-remaining', String(rate.remaining));
  ctx.set('ratelimit-reset', String(rate.resetSeconds));
}

/** The spec's error body, as the API answers it (see errorResult in app.ts). */
function refuse(ctx: Context, err: unknown, requestId: string, rate: RateDecision | null, logger: Logger): void {
  if (ctx.res.headersSent) {
    logger.error({ err, requestId }, 'MCP request failed after its answer began');
    return;
  }
  let error: AppError;
  if (err instanceof AppError) error = err;
  else if (isDependencyDown(err)) {
    logger.error({ err, requestId }, 'dependency unavailable');
    error = new ServiceUnavailableError(`A dependency is unavailable; retry with backoff (request id ${requestId})`);
  } else {
    logger.error({ err, requestId, path: ctx.path }, 'unexpected error');
    error = new ApplicationError(`An unexpected error occurred; request id ${requestId}`);
  }
  ctx.respond = true;
  setRateHeaders(ctx, rate);
  for (const [name, value] of Object.entries(error.headers ?? {})) ctx.set(name, value);
  ctx.status = error.statusCode;
  ctx.type = 'application/json; charset=utf-8';
  ctx.body = JSON.stringify(error.toBody());
}
