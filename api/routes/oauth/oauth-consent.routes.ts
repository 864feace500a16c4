import type { IncomingHttpHeaders } from 'node:http';
import type { SessionCaller } from '../../../core/accounts/account.types.js';
import type { AuthorizationRequest } from '../../../core/oauth/authorize-request.js';
import type { ApprovedGrant } from '../../../core/oauth/oauth-consent.service.js';
import { personActor } from '../../../core/platform/audit/audit-actor.js';
import type { Services } from '../../../app/services.js';
import { AppError } from '../../../lib/errors.js';
import { consentLoginPage, consentMfaPage, consentPage } from '../../pages/consent-pages.js';
import type { PageForm } from '../../pages/page-form.js';
import { htmlResult, messagePage, pageCsp } from '../../pages/page-layout.js';
import { defineRoute, type RouteContext, type RouteResult } from '../../route.js';
import { assertSameOrigin } from '../../session-auth.js';
import { readSessionCookie, sessionCookie } from '../../session-cookie.js';
import { CONSENT_PATH } from './oauth-protocol.routes.js';
import { auditPasswordBypass } from '../auth/session.routes.js';

/**
 * The consent page /oauth/authorize sends the person to (spec: "person approves on consent
 * page"). It needs a dashboard session: without one it shows a sign-in form (and the second
 * factor when MFA is on) that posts here and comes back. Every POST must come from this
 * appliance's own origin (login CSRF and consent CSRF alike), so these pages send their Referrer
 * only to the same origin rather than not at all: with `no-referrer` a browser posts
 * `Origin: null`. The form's CSP lets it post here and follow the answer's redirect to the
 * client's redirect URI, nowhere else.
 */
const tag = 'oauth';
const html = { description: 'An HTML page', contentType: 'text/html' };
const SIGN_IN_LIMIT = 'Too many attempts: wait a few minutes and try again.';
const SSO_REQUIRED =
  'This address signs in through its team’s single sign-on: sign in to the dashboard with it first, then come back here.';

type Page = { headers: IncomingHttpHeaders; services: Services };

export const oauthConsentRoutes = [
  defineRoute({
    method: 'GET',
    path: CONSENT_PATH,
    surface: 'pages',
    operationId: 'consentPage',
    summary: 'The consent page: sign in first when there is no session, then allow or deny the app',
    tag,
    permission: 'none',
    scope: null,
    responses: { 200: html, 400: html, 403: html },
    handler: async ({ query, headers, services }) => {
      const requestId = field(query as Record<string, unknown>, 'request');
      const request = requestId ? await services.oauthAuthorization.pending(requestId) : undefined;
      if (!request) return expired();
      return showConsent({ headers, services }, requestId, request);
    },
  }),
  defineRoute({
    method: 'POST',
    path: CONSENT_PATH,
    surface: 'pages',
    operationId: 'answerConsent',
    summary: 'Allow (redirect with code and state) or deny (redirect with error=access_denied)',
    tag,
    permission: 'none',
    scope: null,
    responses: { 303: { description: 'Back to the client' }, 400: html, 403: html },
    handler: async (ctx) => {
      const refused = crossSite(ctx);
      if (refused) return refused;
      const form = (ctx.body as PageForm).fields;
      const requestId = form.request?.[0] ?? '';
      const session = await sessionOf(ctx);
      if (!session) {
        const request = await ctx.services.oauthAuthorization.pending(requestId);
        return request ? consentHtml(401, consentLoginPage(requestId, request.clientName)) : expired();
      }
      if (!session.team || !ctx.services.oauthConsent.mayConnectApps(session.role)) return notAdmin(session);
      const decision = form.decision?.[0];
      const outcome = await ctx.services.oauthConsent.decide(
        requestId,
        { userId: session.user.id, teamId: session.team.id, role: session.role },
        decision === 'approve',
      );
      if (outcome.kind === 'gone') return expired();
      if (outcome.kind === 'client_gone')
        return messagePage(400, 'This app is no longer registered', outcome.description);
      if (outcome.granted) await auditConnectedApp(ctx, session.user, session.team.id, outcome.granted);
      return { status: 303, headers: { location: outcome.location } };
    },
  }),
  defineRoute({
    method: 'POST',
    path: `${CONSENT_PATH}/login`,
    surface: 'pages',
    operationId: 'consentLogin',
    summary: 'The consent page’s sign-in form (same rules and throttle as POST /auth/login)',
    tag,
    permission: 'none',
    scope: null,
    responses: {
      303: { description: 'Signed in: back to the consent page' },
      ...{ 200: html, 400: html, 401: html, 403: html },
    },
    handler: async (ctx) => {
      const refused = crossSite(ctx);
      if (refused) return refused;
      const form = (ctx.body as PageForm).fields;
      const requestId = form.request?.[0] ?? '';
      const request = await ctx.services.oauthAuthorization.pending(requestId);
      if (!request) return expired();
      const credentials = { email: form.email?.[0] ?? '', password: form.password?.[0] ?? '' };
      try {
        const outcome = await ctx.services.accounts.login(credentials, ctx.clientIp);
        if (outcome.passwordBypass)
          await auditPasswordBypass(ctx.services, outcome.passwordBypass, ctx.clientIp, ctx.headers);
        if (outcome.kind === 'mfa') return consentHtml(200, consentMfaPage(requestId, outcome.challengeToken));
        return backToConsent(ctx.services, requestId, outcome.issued.token);
      } catch (err) {
        // An address whose team enforces single sign-on has no password sign-in here either.
        const sso = err instanceof AppError && err.statusCode === 403 && err.details?.next === 'sso';
        if (
          !(err instanceof AppError) ||
          (err.statusCode !== 401 && err.statusCode !== 429 && err.statusCode !== 422 && !sso)
        )
          throw err;
        const problem =
          err.statusCode === 429
            ? SIGN_IN_LIMIT
            : sso
              ? SSO_REQUIRED
              : 'That e-mail and password do not match an account.';
        return consentHtml(
          err.statusCode === 429 ? 429 : sso ? 403 : 401,
          consentLoginPage(requestId, request.clientName, problem),
        );
      }
    },
  }),
  defineRoute({
    method: 'POST',
    path: `${CONSENT_PATH}/mfa`,
    surface: 'pages',
    operationId: 'consentMfa',
    summary: 'The consent page’s second-factor form (a TOTP code or a recovery code)',
    tag,
    permission: 'none',
    scope: null,
    responses: { 303: { description: 'Signed in: back to the consent page' }, 400: html, 401: html },
    handler: async (ctx) => {
      const refused = crossSite(ctx);
      if (refused) return refused;
      const form = (ctx.body as PageForm).fields;
      const requestId = form.request?.[0] ?? '';
      if (!(await ctx.services.oauthAuthorization.pending(requestId))) return expired();
      const challengeToken = form.challenge_token?.[0] ?? '';
      const code = (form.code?.[0] ?? '').trim();
      try {
        const issued = await ctx.services.accountMfa.verifyChallenge(
          /^\d{6}$/.test(code) ? { challengeToken, code } : { challengeToken, recoveryCode: code },
          ctx.clientIp,
        );
        return backToConsent(ctx.services, requestId, issued.token);
      } catch (err) {
        if (!(err instanceof AppError) || err.statusCode >= 500) throw err;
        const problem = err.statusCode === 429 ? SIGN_IN_LIMIT : 'That code is not valid. Try again.';
        return consentHtml(err.statusCode === 429 ? 429 : 401, consentMfaPage(requestId, challengeToken, problem));
      }
    },
  }),
];

async function showConsent(ctx: Page, requestId: string, request: AuthorizationRequest) {
  const session = await sessionOf(ctx);
  if (!session) return consentHtml(200, consentLoginPage(requestId, request.clientName));
  if (!session.team || !ctx.services.oauthConsent.mayConnectApps(session.role)) return notAdmin(session);
  const view = { teamName: session.team.name, userEmail: session.user.email };
  return consentHtml(200, consentPage(requestId, request, view), new URL(request.redirectUri).origin);
}

async function sessionOf(ctx: Page): Promise<SessionCaller | undefined> {
  const token = readSessionCookie(ctx.headers.cookie);
  return token ? await ctx.services.userSessions.resolve(token) : undefined;
}

/** Refuses a POST a browser says came from another origin (or with no origin at all). */
function crossSite(ctx: Page): RouteResult | undefined {
  const get = (name: string) => {
    const value = ctx.headers[name];
    return typeof value === 'string' ? value : '';
  };
  try {
    assertSameOrigin({ get } as never, ctx.services, false);
    return undefined;
  } catch {
    return messagePage(403, 'Request refused', 'This form must be sent from this site. Go back and try again.');
  }
}

function backToConsent(services: Services, requestId: string, token: string): RouteResult {
  return {
    status: 303,
    headers: {
      location: `${CONSENT_PATH}?request=${encodeURIComponent(requestId)}`,
      'set-cookie': sessionCookie(token, services.accountSettings.secureCookies),
    },
  };
}

/**
 * A consent page: its Referrer goes to this origin only (so form posts carry our Origin), and
 * its forms may post here and, for the consent form, follow the redirect to the client. Like
 * every page it loads nothing remote: a client's logo_uri is not shown (the person's browser
 * would fetch an address the client chose, telling it who looks and when).
 */
function consentHtml(status: number, body: string, clientOrigin?: string): RouteResult {
  const formAction = clientOrigin ? `'self' ${clientOrigin}` : "'self'";
  return htmlResult(status, body, {
    'referrer-policy': 'same-origin',
    'content-security-policy': pageCsp({ formAction }),
  });
}

function expired(): RouteResult {
  return messagePage(
    400,
    'This request has expired',
    'The app’s sign-in request is no longer valid (it lasts 10 minutes and takes one answer). Start again from the app.',
  );
}

function notAdmin(session: SessionCaller): RouteResult {
  return session.team
    ? messagePage(
        403,
        'Ask a team admin',
        `Only an owner or admin of ${session.team.name} can connect an app to it. Ask one of them, or switch to a team you administer.`,
      )
    : messagePage(403, 'No team', 'Your account is not a member of any team yet.');
}

function field(query: Record<string, unknown>, name: string): string {
  const value = query[name];
  return typeof value === 'string' ? value : '';
}

/** An owner or admin connecting an app is a new credential of the team: the audit log records it. */
async function auditConnectedApp(
  ctx: RouteContext<unknown, unknown, unknown>,
  user: { id: string; email: string },
  teamId: string,
  granted: ApprovedGrant,
): Promise<void> {
  const userAgent = ctx.headers['user-agent'];
  await ctx.services.audit.record(
    {
      teamId,
      actor: personActor(user),
      action: 'oauth_grant.created',
      resource: { type: 'oauth_grant', id: granted.grantId },
      metadata: { client_id: granted.clientId, client_name: granted.clientName, scopes: granted.scopes },
    },
    { ip: ctx.clientIp, userAgent: typeof userAgent === 'string' ? userAgent : null },
  );
}
