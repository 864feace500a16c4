import { SESSION_ABSOLUTE_MS } from '../core/accounts/account.types.js';

/**
 * The dashboard session cookie: `mailroom_session`, HttpOnly (no script reads it), SameSite=Lax
 * (not sent on cross-site POSTs; the Origin check in session-auth.ts covers the rest), Path=/
 * (both bases and the dashboard), Max-Age until the session's absolute expiry (the idle limit is
 * enforced by the server), and Secure whenever `services.accountSettings.secureCookies` says so
 * (an https public URL, or production: see cookiesAreSecure).
 */
export const SESSION_COOKIE = 'mailroom_session';

/**
 * Every Set-Cookie value the appliance emits is built here, so every cookie has the same
 * attributes and follows the same Secure rule; pass `services.accountSettings.secureCookies`.
 */
function setCookie(name: string, value: string, maxAgeSeconds: number, secure: boolean): string {
  return `${name}=${value}; Max-Age=${maxAgeSeconds}; Path=/; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

/** The cookie of a new session (lasting SESSION_ABSOLUTE_MS). */
export function sessionCookie(token: string, secure: boolean): string {
  return setCookie(SESSION_COOKIE, token, Math.floor(SESSION_ABSOLUTE_MS / 1000), secure);
}

/** Tells the browser to drop the cookie (logout). */
export function clearedSessionCookie(secure: boolean): string {
  return setCookie(SESSION_COOKIE, '', 0, secure);
}

/** The session token of a Cookie header, if there is one. */
export function readSessionCookie(header: string | undefined): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) {
      const value = part.slice(eq + 1).trim();
      return value.length > 0 && value.length <= 128 ? value : undefined;
    }
  }
  return undefined;
}
