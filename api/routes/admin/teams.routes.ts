import { z } from 'zod';
import { findPlan, PLANS } from '../../../core/platform/plans/plan.catalog.js';
import type { Team } from '../../../core/platform/teams/team.types.js';
import { NotFoundError, ValidationError } from '../../../lib/errors.js';
import type { Services } from '../../../app/services.js';
import { defineRoute } from '../../route.js';
import { uuidParam } from '../../schemas.js';
import { serializeTeam } from '../../serializers/team.serializer.js';
import { usageSchema } from '../usage.routes.js';
import { auditEvent } from '../../audit-events.js';

const tag = 'admin';

/** The team as GET /team shows it, plus what only the operator sets: the sending tier, suspension. */
const adminTeamShape = z
  .object({
    object: z.literal('team'),
    id: z.string(),
    name: z.string(),
    slug: z.string(),
    risk_state: z.string(),
    tier: z.number().int(),
    suspended: z.boolean(),
  })
  .passthrough();

/** With the team's single sign-on summary, as GET /team shows it. */
const adminTeam = async (team: Team, services: Pick<Services, 'sso'>) => ({
  ...serializeTeam(team, await services.sso.summary(team.id)),
  tier: team.sendingTier,
  suspended: team.riskState === 'suspended',
});

const teamParams = z.object({ team_id: uuidParam('The team id') });

/**
 * A team the operator names: a 404 for a well-formed id of no team. (No tenant isolation here:
 * the operator reaches every team; the team routes' isolation is the team's own view.)
 */
async function findTeam(services: { teams: { get(id: string): Promise<Team> } }, id: string): Promise<Team> {
  return services.teams.get(id).catch((err: unknown) => {
    if (err instanceof NotFoundError) throw new NotFoundError('Team not found');
    throw err;
  });
}

/** Teams (tenants) as `mailroom team ...` manages them, and the platform's broadcast switch. */
export const adminTeamRoutes = [
  defineRoute({
    method: 'GET',
    path: '/admin/teams',
    operationId: 'adminListTeams',
    summary: 'Every team, oldest first, a page at a time (after: the last id of the previous page)',
    tag,
    permission: 'operator',
    scope: null,
    query: z
      .object({
        limit: z.coerce.number().int().min(1).max(100).default(20),
        after: uuidParam('the last team id of the previous page').optional(),
      })
      .strict(),
    responses: {
      200: {
        description: 'A page of teams',
        schema: z.object({ object: z.literal('list'), has_more: z.boolean(), data: z.array(adminTeamShape) }),
      },
    },
    handler: async ({ query, services }) => {
      // Ordered by id (time-ordered UUIDs): the cursor is the last id seen.
      const { teams, hasMore } = await services.teams.page(query.after, query.limit);
      const data = await Promise.all(teams.map((team) => adminTeam(team, services)));
      return { status: 200, body: { object: 'list', has_more: hasMore, data } };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/admin/teams',
    operationId: 'adminCreateTeam',
    summary: 'Create a team and its first full_access API key (the token is shown this once)',
    tag,
    permission: 'operator',
    scope: null,
    body: z
      .object({
        name: z.string().trim().min(1).max(80),
        plan: z.string().min(1).max(40).optional(),
        owner_email: z.string().email().max(320).optional(),
      })
      .strict(),
    exampleBody: { name: 'Acme', plan: 'free' },
    responses: {
      201: {
        description: 'The team and its key',
        schema: z.object({
          object: z.literal('team_created'),
          team: adminTeamShape,
          api_key: z.object({ id: z.string(), token: z.string() }),
        }),
      },
    },
    audit: ({ body }, result) => {
      const teamId = (result.body as { team: { id: string } }).team.id;
      return { ...auditEvent('team.created', 'team', teamId, { name: body.name, plan: body.plan ?? null }), teamId };
    },
    handler: async ({ body, services }) => {
      if (body.plan !== undefined && !findPlan(body.plan))
        throw new ValidationError(`unknown plan ${body.plan}; plans: ${PLANS.map((p) => p.code).join(', ')}`);
      const team = await services.teams.create({ name: body.name, planCode: body.plan, ownerEmail: body.owner_email });
      const key = await services.apiKeys.create(team.id, { name: 'Initial key', permission: 'full_access' });
      return {
        status: 201,
        body: {
          object: 'team_created',
          team: await adminTeam(team, services),
          api_key: { id: key.id, token: key.token },
        },
      };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/admin/teams/:team_id',
    operationId: 'adminGetTeam',
    summary: 'One team',
    tag,
    permission: 'operator',
    scope: null,
    params: teamParams,
    responses: { 200: { description: 'The team', schema: adminTeamShape } },
    handler: async ({ params, services }) => ({
      status: 200,
      body: await adminTeam(await findTeam(services, params.team_id), services),
    }),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/admin/teams/:team_id',
    operationId: 'adminUpdateTeam',
    summary: "Set a team's plan (quotas, retention, domain limit) and/or sending tier (2 or more: out of the sandbox)",
    tag,
    permission: 'operator',
    scope: null,
    params: teamParams,
    body: z
      .object({
        plan: z.string().min(1).max(40).optional(),
        tier: z.number().int().min(0).max(3).optional(),
      })
      .strict()
      .refine((b) => b.plan !== undefined || b.tier !== undefined, {
        message: 'send plan and/or tier',
        path: ['plan'],
      }),
    exampleBody: { tier: 2 },
    responses: { 200: { description: 'The team', schema: adminTeamShape } },
    audit: ({ params, body }) => ({
      ...auditEvent('team.operator_updated', 'team', params.team_id, {
        plan: body.plan ?? null,
        tier: body.tier ?? null,
      }),
      teamId: params.team_id,
    }),
    handler: async ({ params, body, services }) => {
      await findTeam(services, params.team_id);
      if (body.plan !== undefined) await services.teams.setPlan(params.team_id, body.plan);
      if (body.tier !== undefined) await services.teams.setTier(params.team_id, body.tier);
      return { status: 200, body: await adminTeam(await findTeam(services, params.team_id), services) };
    },
  }),
  ...(
    [
      ['suspend', 'suspended', 'Suspend a team: every API key and session of it answers 403 suspended_api_key'],
      ['resume', 'normal', 'Put a suspended team back in use'],
    ] as const
  ).map(([action, state, summary]) =>
    defineRoute({
      method: 'POST',
      path: `/admin/teams/:team_id/${action}`,
      operationId: action === 'suspend' ? 'adminSuspendTeam' : 'adminResumeTeam',
      summary,
      tag,
      permission: 'operator',
      scope: null,
      params: teamParams,
      responses: { 200: { description: 'The team', schema: adminTeamShape } },
      audit: ({ params }) => ({
        ...auditEvent(`team.${state === 'suspended' ? 'suspended' : 'resumed'}`, 'team', params.team_id),
        teamId: params.team_id,
      }),
      handler: async ({ params, services }) => {
        await findTeam(services, params.team_id);
        return {
          status: 200,
          body: await adminTeam(await services.teams.setRiskState(params.team_id, state), services),
        };
      },
    }),
  ),
  defineRoute({
    method: 'GET',
    path: '/admin/teams/:team_id/usage',
    operationId: 'adminGetTeamUsage',
    summary: "A team's usage this day and month against its plan (the GET /usage object)",
    tag,
    permission: 'operator',
    scope: null,
    params: teamParams,
    responses: { 200: { description: 'The usage object', schema: usageSchema } },
    handler: async ({ params, services }) => ({
      status: 200,
      body: await services.usageSnapshot.get(await findTeam(services, params.team_id)),
    }),
  }),
];
