import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import type Koa from 'koa';
import type { Audience } from '../../core/platform/auth/caller.js';

export type InProcessRequest = {
  method: string;
  /** Path and query string, relative to the root base. */
  url: string;
  /** Lower-case names. */
  headers: Record<string, string>;
  body?: string;
  /** The client's address, as the outer request resolved it (the rate limit and logs use it). */
  ip: string;
  /** The resource the outer request's token was presented to: the pipeline authenticates it for that one. */
  audience: Audience;
};

export type InProcessResponse = { status: number; body: unknown; requestId: string | undefined };

export type Dispatch = (request: InProcessRequest) => Promise<InProcessResponse>;

/** The audience of requests made here; a request from a socket is never in it. */
const audiences = new WeakMap<IncomingMessage, Audience>();

/**
 * The resource a request's bearer token is presented to: the REST API, unless the request is an
 * MCP tool call run here (its token was issued for /mcp, and is good for the route the tool names
 * only in that call). Nothing a client sends can set it.
 */
export function requestAudience(ctx: Koa.Context): Audience {
  return audiences.get(ctx.req) ?? 'api';
}

/**
 * Runs a request through the API's own middleware without a network hop: a Koa context over a
 * request that is not from a socket and a response that is never sent. The API middleware
 * only sets status, headers and body on the context (Koa writes them out afterwards, which
 * does not happen here), so what it set is read back. This is how an MCP tool call gets the
 * very pipeline of its REST route: User-Agent, credential, rate limit, scope, input,
 * idempotency, handler, commit and request log.
 */
export function inProcessDispatch(app: Koa, handler: (ctx: Koa.Context) => Promise<void>): Dispatch {
  return async (request) => {
    const req = new IncomingMessage(new Socket());
    req.method = request.method;
    req.url = request.url;
    req.headers = { ...request.headers };
    if (request.body !== undefined) {
      const bytes = Buffer.from(request.body, 'utf8');
      req.headers['content-type'] ??= 'application/json';
      req.headers['content-length'] = String(bytes.length);
      req.push(bytes);
    }
    req.push(null);
    audiences.set(req, request.audience);
    const ctx = app.createContext(req, new ServerResponse(req)) as Koa.Context;
    ctx.request.ip = request.ip;
    await handler(ctx);
    return {
      status: ctx.status,
      body: parseJson(ctx.body),
      requestId: ctx.response.get('x-request-id') || undefined,
    };
  };
}

/** The API middleware answers JSON text (or bytes for served files, which no tool calls). */
function parseJson(body: unknown): unknown {
  const text = Buffer.isBuffer(body) ? body.toString('utf8') : body;
  if (typeof text !== 'string' || text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
