import type { Context } from 'koa';
import { HttpMethodEnum, koaBody } from 'koa-body';
import { ValidationError } from '../lib/errors.js';

/** Nesting of arrays and objects a JSON body may have: far above any valid request, far below a stack's reach. */
export const MAX_JSON_DEPTH = 64;

export type ReadBody = { parsed: unknown; raw: string };

type BodyError = Error & { type?: string; status?: number; statusCode?: number };

/**
 * JSON bodies through koa-body (co-body underneath: size limit before and while reading,
 * decompression, prototype-poisoning keys refused), with what the API adds around it:
 * - every refusal is the spec's error body (400 validation_error), and a body over the limit
 *   is answered without reading the rest, asking the connection to close;
 * - a body without a Content-Type is read as JSON, as it always was; another type is refused;
 * - the unparsed text is kept for Idempotency-Key fingerprints;
 * - nesting deeper than MAX_JSON_DEPTH is refused before anything walks the value.
 * Only write methods carry a body; on others nothing is read.
 */
export function jsonBodyReader(limit: number): (ctx: Context) => Promise<ReadBody> {
  const parse = koaBody({
    json: true,
    jsonTypes: ['application/json', '+json'],
    jsonStrict: false,
    jsonLimit: limit,
    includeUnparsed: true,
    urlencoded: false,
    text: false,
    multipart: false,
    parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE],
    patchNode: false,
    onError: (err) => {
      throw refusal(err as BodyError, limit);
    },
  });
  return async (ctx) => {
    if (!ctx.request.length && ctx.get('transfer-encoding') === '') return { parsed: {}, raw: '' };
    const type = ctx.get('content-type');
    if (type === '') ctx.req.headers['content-type'] = 'application/json';
    else if (!ctx.is(['application/json', '+json']))
      throw new ValidationError('Content-Type must be application/json', {
        errors: [{ path: '', message: 'body must be JSON' }],
      });
    await parse(ctx, noop);
    const request = ctx.request as typeof ctx.request & { body?: unknown; rawBody?: string };
    const raw = request.rawBody ?? '';
    const parsed = raw === '' ? {} : request.body;
    assertDepth(parsed);
    return { parsed, raw };
  };
}

const noop = async () => {};

/**
 * The headers of every answer that refuses a body over its limit (the JSON API's 400, the pages'
 * and the OAuth endpoints' 413): the rest of the body is not read, so the connection cannot serve
 * another request. Connection: close makes Node end it once the answer is out; without it the
 * client would keep sending into a kept-alive connection that nobody reads, and wait.
 */
export function oversizedBodyHeaders(): Record<string, string> {
  return { connection: 'close' };
}

function refusal(err: BodyError, limit: number): Error {
  if (err.type === 'entity.too.large') {
    return new ValidationError(`Request body is larger than ${limit} bytes`, {
      errors: [{ path: '', message: `must be at most ${limit} bytes` }],
      headers: oversizedBodyHeaders(),
    });
  }
  if (err instanceof SyntaxError || err.type === 'entity.parse.failed') {
    return new ValidationError('Request body is not valid JSON', {
      errors: [{ path: '', message: 'is not valid JSON' }],
    });
  }
  const status = err.status ?? err.statusCode ?? 500;
  if (status >= 400 && status < 500 && err.type !== 'request.aborted')
    return new ValidationError(`Request body could not be read: ${err.message}`, {
      errors: [{ path: '', message: err.message }],
    });
  return err;
}

/** Refuses nesting deeper than MAX_JSON_DEPTH; iterative, so no depth can overflow the stack here. */
function assertDepth(value: unknown): void {
  if (value === null || typeof value !== 'object') return;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (depth > MAX_JSON_DEPTH) {
      throw new ValidationError(`Request body is nested deeper than ${MAX_JSON_DEPTH} levels`, {
        errors: [{ path: '', message: `arrays and objects may nest at most ${MAX_JSON_DEPTH} levels` }],
      });
    }
    for (const child of Object.values(current as object))
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
}

/** Query string to an object; a repeated name becomes an array (single-valued schemas refuse it). */
export function queryObject(search: URLSearchParams): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of search) {
    const current = query[name];
    query[name] = current === undefined ? value : Array.isArray(current) ? [...current, value] : [current, value];
  }
  return query;
}
