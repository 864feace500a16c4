import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import type Koa from 'koa';

export type InProcessRequest = {
  method: string;
  /** Path and query string, relative to the root base. */
  url: string;
  /** Lower-case names. */
  headers: Record<string, string>;
  body?: string;
  /** The client's address, as the outer request resolved it (the rate limit and logs use it). */
  ip: string;
};

export type InProcessResponse = { status: number; body: unknown; requestId: string | undefined };

export type Dispatch = (request: InProcessRequest) => Promise<InProcessResponse>;

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
