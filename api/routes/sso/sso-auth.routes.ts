import { APPLIANCE_ACTOR, type AuditActor } from '../../../core/platform/audit/audit.types.js';
import { discoverSsoSchema, ssoCallbackQuerySchema } from '../../../core/sso/sso.schemas.js';
import type { SsoCallbackOutcome } from '../../../core/sso/sso-sign-in.service.js';
import type { Services } from '../../../app/services.js';
import { defineRoute, type RouteResult } from '../../route.js';
import { errorBodySchema } from '../../schemas.js';
import { sessionCookie } from '../../session-cookie.js';
import { ssoDiscoveryShape } from './sso-shapes.js';

const tag = 'sso';

type Origin = { ip: string | null; userAgent: string | null };

/**
 * Signing in through a team's provider, before any session: the sign-in page asks where an
 * address goes (discover), and the provider sends the browser back to the callback, which
 * answers with a redirect into the dashboard (never a JSON error: a person is looking).
 */
export const ssoAuthRoutes = [
  defineRoute({
    method: 'POST',
    path: '/auth/sso/discover',
    operationId: 'discoverSso',
    summary: "Whether an address signs in through its team's single sign-on; if so, where to go",
    tag,
    permission: 'none',
    scope: null,
    originCheck: true,
    body: discoverSsoSchema,
    exampleBody: { email: 'ann@example.com' },
    responses: {
      200: { description: 'sso: false, or the provider’s authorization_url', schema: ssoDiscoveryShape },
      429: {
        description: 'Too many look-ups for this address or from this client (rate_limit_exceeded, Retry-After)',
        schema: errorBodySchema,
      },
      503: { description: 'The team’s provider could not be reached', schema: errorBodySchema },
    },
    handler: async ({ body, services, clientIp }) => {
      const found = await services.ssoSignIn.discover(body.email, clientIp);
      return {
        status: 200,
        body: found.sso
          ? { object: 'sso_discovery', sso: true, enforced: found.enforced, authorization_url: found.authorizationUrl }
          : { object: 'sso_discovery', sso: false },
      };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/auth/sso/callback',
    operationId: 'ssoCallback',
    summary: 'The redirect URI: the provider sends the browser here with code and state',
    tag,
    permission: 'none',
    scope: null,
    query: ssoCallbackQuerySchema,
    responses: {
      302: {
        description:
          'To /dashboard/ signed in (Set-Cookie), or /dashboard/login?sso_error=<code>; a test to /dashboard/team/sso?sso_test=ok|failed',
      },
    },
    handler: async ({ query, services, clientIp, headers }) => {
      const outcome = await services.ssoSignIn.callback(query);
      const userAgent = headers['user-agent'];
      const origin = { ip: clientIp || null, userAgent: (Array.isArray(userAgent) ? userAgent[0] : userAgent) ?? null };
      await audit(services, outcome, origin);
      return redirectFor(services, outcome);
    },
  }),
];

function redirectFor(services: Services, outcome: SsoCallbackOutcome): RouteResult {
  const { dashboard } = services.ssoLinks;
  const to = (path: string, headers: Record<string, string> = {}) => ({
    status: 302,
    headers: { location: dashboard(path), 'cache-control': 'no-store', ...headers },
  });
  switch (outcome.kind) {
    case 'signed_in':
      return to('/dashboard/', {
        'set-cookie': sessionCookie(outcome.issued.token, services.accountSettings.secureCookies),
      });
    case 'tested':
      return to('/dashboard/team/sso?sso_test=ok');
    case 'failed':
      return outcome.purpose === 'test'
        ? to(`/dashboard/team/sso?sso_test=failed&reason=${outcome.error.code}`)
        : to(`/dashboard/login?sso_error=${outcome.error.code}`);
  }
}

/** What a callback records in the team's audit log (a failure with no team, a bad state, records nothing). */
async function audit(services: Services, outcome: SsoCallbackOutcome, origin: Origin): Promise<void> {
  const resource = (teamId: string) => ({ type: 'sso_configuration', id: teamId });
  if (outcome.kind === 'signed_in') {
    const actor: AuditActor = { type: 'user', id: outcome.user.id, name: outcome.user.email };
    const base = { teamId: outcome.teamId, actor };
    if (outcome.joined)
      await services.audit.record(
        {
          ...base,
          action: 'sso.member_joined',
          resource: { type: 'user', id: outcome.user.id },
          metadata: { role: outcome.role },
        },
        origin,
      );
    await services.audit.record({ ...base, action: 'sso.signed_in', resource: resource(outcome.teamId) }, origin);
    return;
  }
  if (outcome.kind === 'tested') {
    const actor: AuditActor = { type: 'user', id: outcome.userId, name: outcome.testerEmail };
    await services.audit.record(
      {
        teamId: outcome.teamId,
        actor,
        action: 'sso.tested',
        resource: resource(outcome.teamId),
        metadata: { email: outcome.email },
      },
      origin,
    );
    return;
  }
  if (!outcome.teamId) return;
  await services.audit.record(
    {
      teamId: outcome.teamId,
      actor: APPLIANCE_ACTOR,
      action: 'sso.sign_in_failed',
      resource: resource(outcome.teamId),
      metadata: { error: outcome.error.code, purpose: outcome.purpose, email: outcome.email },
    },
    origin,
  );
}
