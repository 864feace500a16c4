import { z } from 'zod';
import { patchSsoSchema, putSsoSchema, ssoSignInsQuerySchema } from '../../../core/sso/sso.schemas.js';
import { listEnvelope } from '../../../core/shared/pagination/list-query.js';
import { auditEvent } from '../../audit-events.js';
import { defineRoute, type RouteContext } from '../../route.js';
import { errorBodySchema, listSchema } from '../../schemas.js';
import { serializeSsoChange, serializeSsoConfiguration, serializeSsoSignIn } from '../../serializers/sso.serializer.js';
import { ssoChangeShape, ssoConfigurationShape, ssoSignInShape } from './sso-shapes.js';

const tag = 'sso';
/**
 * Single sign-on is configured in the dashboard only (spec): every route here is a session
 * route (a key or an OAuth token gets 403 invalid_permission), for the team's owners and admins
 * (a member gets 403 invalid_permission too).
 */
const admin = { tag, permission: 'session' as const, scope: null };
const refusals = {
  403: { description: 'A member, a key, or a plan without single sign-on (validation_error)', schema: errorBodySchema },
  404: { description: 'Single sign-on is not configured for this team', schema: errorBodySchema },
};
const resource = (ctx: RouteContext<unknown, unknown, unknown>) => ctx.session.team?.id ?? null;
const ssoEvent = (
  ctx: RouteContext<unknown, unknown, unknown>,
  action: string,
  metadata?: Record<string, string | number | boolean | readonly string[]>,
) => auditEvent(action, 'sso_configuration', resource(ctx), metadata);

export const teamSsoRoutes = [
  defineRoute({
    ...admin,
    method: 'GET',
    path: '/team/sso',
    operationId: 'getTeamSso',
    summary: "The team's single sign-on (owner or admin; never the client secret)",
    responses: { 200: { description: 'The configuration', schema: ssoConfigurationShape }, ...refusals },
    handler: async ({ session, services }) => ({
      status: 200,
      body: serializeSsoConfiguration(await services.sso.get(session), services.ssoLinks.redirectUri()),
    }),
  }),
  defineRoute({
    ...admin,
    method: 'PUT',
    path: '/team/sso',
    operationId: 'putTeamSso',
    summary: 'Configure the OpenID provider and the covered (verified) domains; client_secret required the first time',
    body: putSsoSchema,
    exampleBody: {
      issuer: 'https://accounts.google.com',
      client_id: 'mailroom-dashboard',
      client_secret: 'the-provider-secret',
      domains: ['example.com'],
    },
    responses: {
      200: { description: 'The configuration', schema: ssoChangeShape },
      422: { description: 'Unverified or taken domain, bad issuer, missing secret', schema: errorBodySchema },
      ...refusals,
    },
    audit: (ctx, result) => {
      const body = result.body as { created_at: string; updated_at: string; issuer: string; domains: string[] };
      const action = body.created_at === body.updated_at ? 'sso.configured' : 'sso.updated';
      return ssoEvent(ctx, action, { issuer: body.issuer, domains: body.domains });
    },
    handler: async ({ body, session, services }) => ({
      status: 200,
      body: serializeSsoChange(await services.sso.put(session, body), services.ssoLinks.redirectUri()),
    }),
  }),
  defineRoute({
    ...admin,
    method: 'POST',
    path: '/team/sso/test',
    operationId: 'testTeamSso',
    summary: 'Start a test sign-in: open authorization_url; the callback marks the configuration tested',
    responses: {
      200: {
        description: 'Where the browser goes',
        schema: z.object({ object: z.literal('sso_test'), authorization_url: z.string() }).strict(),
      },
      422: { description: 'The provider could not be used (details.reason)', schema: errorBodySchema },
      ...refusals,
    },
    handler: async ({ session, services }) => ({
      status: 200,
      body: { object: 'sso_test', authorization_url: await services.sso.startTest(session) },
    }),
  }),
  defineRoute({
    ...admin,
    method: 'PATCH',
    path: '/team/sso',
    operationId: 'updateTeamSso',
    summary: 'Turn single sign-on on or off (active needs a test) and enforce it (needs active)',
    body: patchSsoSchema,
    exampleBody: { active: true },
    responses: {
      200: { description: 'The configuration', schema: ssoChangeShape },
      422: { description: 'Not tested yet, or enforced without active', schema: errorBodySchema },
      ...refusals,
    },
    audit: (ctx, result) => {
      const events = [];
      if (ctx.body.active !== undefined)
        events.push(ssoEvent(ctx, ctx.body.active ? 'sso.activated' : 'sso.deactivated'));
      if (ctx.body.enforced !== undefined) {
        const ended = (result.body as { password_sessions_ended: number }).password_sessions_ended;
        events.push(
          ctx.body.enforced
            ? ssoEvent(ctx, 'sso.enforced', { sessions_ended: ended })
            : ssoEvent(ctx, 'sso.unenforced'),
        );
      }
      return events;
    },
    handler: async ({ body, session, services }) => ({
      status: 200,
      body: serializeSsoChange(await services.sso.patch(session, body), services.ssoLinks.redirectUri()),
    }),
  }),
  defineRoute({
    ...admin,
    method: 'DELETE',
    path: '/team/sso',
    operationId: 'deleteTeamSso',
    summary: 'Remove single sign-on (members keep their accounts; those without a password reset one)',
    responses: {
      200: {
        description: 'Removed',
        schema: z.object({ object: z.literal('sso_configuration'), deleted: z.literal(true) }).strict(),
      },
      ...refusals,
    },
    audit: (ctx) => ssoEvent(ctx, 'sso.deleted'),
    handler: async ({ session, services }) => {
      await services.sso.delete(session);
      return { status: 200, body: { object: 'sso_configuration', deleted: true } };
    },
  }),
  defineRoute({
    ...admin,
    method: 'GET',
    path: '/team/sso/sign-ins',
    operationId: 'listTeamSsoSignIns',
    summary: 'Single sign-on callbacks of the team, newest first, with their outcome',
    query: ssoSignInsQuerySchema,
    responses: { 200: { description: 'The sign-ins', schema: listSchema(ssoSignInShape) }, ...refusals },
    handler: async ({ query, session, services }) => {
      const { signIns, hasMore } = await services.sso.signIns(session, query);
      return { status: 200, body: listEnvelope(signIns.map(serializeSsoSignIn), hasMore) };
    },
  }),
];
