import { loginSchema, logoutSchema, signupSchema } from '../../../core/accounts/account.schemas.js';
import type { IssuedSession, SessionCaller } from '../../../core/accounts/account.types.js';
import type { Services } from '../../../app/services.js';
import { personActor } from '../../../core/platform/audit/audit-actor.js';
import type { AuditEvent } from '../../../core/platform/audit/audit.types.js';
import { defineRoute, type RouteResult } from '../../route.js';
import { serializeSession } from '../../serializers/account.serializer.js';
import { clearedSessionCookie, sessionCookie } from '../../session-cookie.js';
import { z } from 'zod';
import { logoutResultShape, mfaChallengeShape, sessionShape } from './auth-shapes.js';

const tag = 'auth';

/** The session's answer, with whether its person is an operator (and still needs MFA). */
export async function sessionBody(session: SessionCaller, services: Services) {
  return serializeSession(session, await services.operators.access(session.user.id));
}

export async function signedIn(status: number, issued: IssuedSession, services: Services): Promise<RouteResult> {
  return {
    status,
    body: await sessionBody(issued.session, services),
    headers: { 'set-cookie': sessionCookie(issued.token, services.accountSettings.secureCookies) },
  };
}

/** A privilege change (MFA on or off): the same session under a new cookie, the old one ended. */
export async function rotated(session: SessionCaller, services: Services): Promise<Record<string, string>> {
  const issued = await services.userSessions.rotate(session);
  return { 'set-cookie': sessionCookie(issued.token, services.accountSettings.secureCookies) };
}

/**
 * An owner's password sign-in on a domain whose team enforces single sign-on (their recovery
 * path): always on the record. With MFA on, the second factor is still to come.
 */
export async function auditPasswordBypass(
  services: Services,
  bypass: { teamId: string; userId: string; email: string },
  clientIp: string,
  headers: Record<string, string | string[] | undefined>,
): Promise<void> {
  const userAgent = headers['user-agent'];
  await services.audit.record(
    {
      teamId: bypass.teamId,
      actor: { type: 'user', id: bypass.userId, name: bypass.email },
      action: 'sso.password_bypass',
      resource: { type: 'user', id: bypass.userId },
    },
    { ip: clientIp || null, userAgent: (Array.isArray(userAgent) ? userAgent[0] : userAgent) ?? null },
  );
}

export type SignInMethod = 'password' | 'mfa_code' | 'recovery_code';

/**
 * A sign-in that opened a session is on the record of the team the session opens in (a person
 * with no team yet has no log to write to); a challenge for the second factor is not a sign-in.
 */
export function signInEntry(result: RouteResult, method: SignInMethod): AuditEvent | null {
  const body = result.body as {
    object?: string;
    user?: { id: string; email: string };
    current_team?: { id: string } | null;
  } | null;
  if (body?.object !== 'session' || !body.user || !body.current_team) return null;
  return {
    teamId: body.current_team.id,
    actor: personActor(body.user),
    action: 'user.signed_in',
    resource: { type: 'user', id: body.user.id },
    metadata: { method },
  };
}

/** Signup, login, the current session and logout: the cookie's life. */
export const sessionRoutes = [
  defineRoute({
    method: 'POST',
    path: '/auth/signup',
    operationId: 'signup',
    summary: 'Create a dashboard account (accounts.signup policy) and sign in',
    tag,
    permission: 'none',
    scope: null,
    originCheck: true,
    body: signupSchema,
    exampleBody: { email: 'ann@example.com', password: 'correct horse', name: 'Ann' },
    responses: { 201: { description: 'Signed in; Set-Cookie mailroom_session', schema: sessionShape } },
    handler: async ({ body, services }) => signedIn(201, await services.accounts.signup(body), services),
  }),
  defineRoute({
    method: 'POST',
    path: '/auth/login',
    operationId: 'login',
    summary: 'Sign in with e-mail and password (a new session each time)',
    tag,
    permission: 'none',
    scope: null,
    originCheck: true,
    body: loginSchema,
    exampleBody: { email: 'ann@example.com', password: 'correct horse' },
    responses: {
      200: {
        description: 'Signed in (Set-Cookie mailroom_session), or with MFA on a challenge for POST /auth/mfa/verify',
        schema: z.union([sessionShape, mfaChallengeShape]),
      },
    },
    audit: (_ctx, result) => signInEntry(result, 'password'),
    handler: async ({ body, services, clientIp, headers }) => {
      const outcome = await services.accounts.login(body, clientIp);
      if (outcome.passwordBypass) await auditPasswordBypass(services, outcome.passwordBypass, clientIp, headers);
      if (outcome.kind === 'session') return signedIn(200, outcome.issued, services);
      const { challengeToken, expiresAt } = outcome;
      return {
        status: 200,
        body: { object: 'mfa_challenge', challenge_token: challengeToken, expires_at: expiresAt.toISOString() },
      };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/auth/session',
    operationId: 'getSession',
    summary: 'The signed-in user and current team',
    tag,
    permission: 'session',
    scope: null,
    responses: { 200: { description: 'The session', schema: sessionShape } },
    handler: async ({ session, services }) => ({ status: 200, body: await sessionBody(session, services) }),
  }),
  defineRoute({
    method: 'POST',
    path: '/auth/logout',
    operationId: 'logout',
    summary: 'End this session, or with all: true every session of the user',
    tag,
    permission: 'session',
    scope: null,
    body: logoutSchema,
    exampleBody: { all: false },
    responses: { 200: { description: 'Revoked; the cookie is cleared', schema: logoutResultShape } },
    handler: async ({ body, session, services }) => {
      if (body.all) await services.userSessions.revokeAll(session.user.id);
      else await services.userSessions.revoke(session.sessionId);
      return {
        status: 200,
        body: { object: 'session', revoked: true },
        headers: { 'set-cookie': clearedSessionCookie(services.accountSettings.secureCookies) },
      };
    },
  }),
];
