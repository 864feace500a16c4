import type { Context } from 'koa';
import type { SessionCaller } from '../core/accounts/account.types.js';
import { sessionAsCaller } from '../core/accounts/session-caller.js';
import type { Caller } from '../core/platform/auth/caller.js';
import type { Services } from '../app/services.js';
import { InvalidApiKeyError, InvalidPermissionError, MissingApiKeyError } from '../lib/errors.js';
import { readSessionCookie } from './session-cookie.js';

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Resolves the dashboard session of a 'session' route. Bearer credentials stay refused (403
 * invalid_permission, as before): session routes are not callable with an API key. Without a
 * session the answer is 401 with the spec's credential names, read for the cookie as for a
 * bearer header: `missing_api_key` when no session cookie came, `invalid_api_key` when it
 * resolves to no live session (unknown, revoked, expired or idle). A client tells "never
 * logged in" from "logged out or expired" by the name, the same way it does for keys.
 */
export async function authenticateSession(ctx: Context, services: Services): Promise<SessionCaller> {
  if (ctx.get('authorization')) throw new InvalidPermissionError('This route is not reachable with an API key');
  const token = readSessionCookie(ctx.get('cookie'));
  if (!token) throw new MissingApiKeyError('Not signed in: this route needs a dashboard session (POST /auth/login)');
  const session = await services.userSessions.resolve(token);
  if (!session) throw new InvalidApiKeyError('The session has ended (logged out, expired or idle): sign in again');
  if (WRITE_METHODS.has(ctx.method)) assertSameOrigin(ctx, services, false);
  return session;
}

/**
 * The dashboard calling a key route (the API the dashboard is built on): with no Authorization
 * header, a session cookie authenticates as its person in the session's current team (see
 * sessionAsCaller). Undefined when no cookie came, so the caller answers missing_api_key as
 * before; a cookie that resolves to no live session is invalid_api_key; writes need this
 * appliance's Origin, as on session routes.
 */
export async function authenticateSessionAsCaller(ctx: Context, services: Services): Promise<Caller | undefined> {
  const token = readSessionCookie(ctx.get('cookie'));
  if (!token) return undefined;
  const session = await services.userSessions.resolve(token);
  if (!session) throw new InvalidApiKeyError('The session has ended (logged out, expired or idle): sign in again');
  if (WRITE_METHODS.has(ctx.method)) assertSameOrigin(ctx, services, false);
  return sessionAsCaller(session);
}

/**
 * CSRF defence for cookie-authenticated writes: the browser's Origin (or, when a browser sends
 * none, the Referer's origin) must be the appliance's public origin (api.publicUrl); a write
 * with neither is refused too, since a browser always sends one of them on a POST and the cookie
 * is only ever set in a browser. SameSite=Lax already keeps the cookie off most cross-site
 * POSTs; this also covers same-site attackers (a sibling subdomain) and older browsers.
 *
 * Login and signup carry no session yet, but a forged login would sign the victim in to the
 * attacker's account ("login CSRF"): with `onlyIfPresent` they are refused when a browser says
 * they come from elsewhere, and accepted from non-browser clients that send no Origin.
 */
export function assertSameOrigin(ctx: Pick<Context, 'get'>, services: Services, onlyIfPresent: boolean): void {
  const claimed = ctx.get('origin') || originOf(ctx.get('referer'));
  if (!claimed && onlyIfPresent) return;
  if (!services.accountSettings.allowedOrigins().includes(claimed)) {
    throw new InvalidPermissionError('cross-site request refused: Origin must be this appliance');
  }
}

function originOf(referer: string): string {
  if (!referer) return '';
  try {
    return new URL(referer).origin;
  } catch {
    return 'invalid';
  }
}
