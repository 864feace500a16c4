import { OAuthError } from '../../../core/oauth/oauth.errors.js';
import type { PageForm } from '../../pages/page-form.js';
import type { RouteContext, RouteResult } from '../../route.js';

/**
 * What the OAuth protocol routes share. They are served on the pages surface (outside the API
 * pipeline, see oauth-protocol.routes.ts) because RFC 6749 asks what the pipeline does not do:
 * form-encoded bodies, its own error shape on every refusal, and answers that must not be cached.
 */
type Ctx = RouteContext<unknown, unknown, unknown>;

/** JSON, never cached (RFC 6749 5.1: Cache-Control no-store, Pragma no-cache). */
export function oauthJson(status: number, body: unknown, headers: Record<string, string> = {}): RouteResult {
  return {
    status,
    headers: { 'cache-control': 'no-store', pragma: 'no-cache', ...headers },
    raw: { contentType: 'application/json; charset=utf-8', bytes: Buffer.from(JSON.stringify(body)) },
  };
}

/** Runs a handler, answering an OAuthError in the `{ error, error_description }` shape. */
export function withOAuthErrors(handler: (ctx: Ctx) => Promise<RouteResult>): (ctx: Ctx) => Promise<RouteResult> {
  return async (ctx) => {
    try {
      return await handler(ctx);
    } catch (err) {
      if (err instanceof OAuthError) return oauthJson(err.status, err.toBody(), err.headers);
      throw err;
    }
  };
}

/**
 * Token and revocation parameters from a form-encoded or JSON body (the spec allows both). Every
 * value must be a single string: a repeated or non-string parameter is invalid_request (RFC 6749 3.2).
 */
export function readParams(ctx: Ctx): Record<string, string | undefined> {
  const form = ctx.body as PageForm;
  if (isJson(ctx)) {
    const parsed = parseJson(form.raw);
    const params: Record<string, string> = {};
    for (const [name, value] of Object.entries(parsed)) {
      if (typeof value !== 'string') throw new OAuthError('invalid_request', `${name} must be a string`);
      params[name] = value;
    }
    return params;
  }
  if (!isForm(ctx) && form.raw.trim() !== '')
    throw new OAuthError('invalid_request', 'The body must be application/x-www-form-urlencoded or JSON');
  const params: Record<string, string> = {};
  for (const [name, values] of Object.entries(form.fields)) {
    if (values.length > 1) throw new OAuthError('invalid_request', `${name} must not be repeated`);
    params[name] = values[0]!;
  }
  return params;
}

/** A registration body: a JSON object (RFC 7591 3.1). */
export function readJsonObject(ctx: Ctx): Record<string, unknown> {
  return parseJson((ctx.body as PageForm | undefined)?.raw ?? '');
}

/** The bearer token of the Authorization header, if there is one. */
export function bearerToken(ctx: Ctx): string | null {
  const header = ctx.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match ? match[1]! : null;
}

function parseJson(raw: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = raw.trim() === '' ? {} : JSON.parse(raw);
  } catch {
    throw new OAuthError('invalid_request', 'The body is not valid JSON');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new OAuthError('invalid_request', 'The body must be a JSON object');
  return parsed as Record<string, unknown>;
}

function contentType(ctx: Ctx): string {
  const header = ctx.headers['content-type'];
  return (typeof header === 'string' ? header : '').split(';')[0]!.trim().toLowerCase();
}

function isJson(ctx: Ctx): boolean {
  const type = contentType(ctx);
  return type === 'application/json' || type.endsWith('+json');
}

function isForm(ctx: Ctx): boolean {
  return contentType(ctx) === 'application/x-www-form-urlencoded';
}
