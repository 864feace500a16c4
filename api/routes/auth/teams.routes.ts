import { z } from 'zod';
import { defineRoute } from '../../route.js';
import { sessionShape } from './auth-shapes.js';
import { signedIn } from './session.routes.js';

const membershipShape = z.object({
  object: z.literal('team_membership'),
  team: z.object({ id: z.string(), name: z.string() }),
  role: z.enum(['owner', 'admin', 'member']),
  current: z.boolean(),
});

/** Team switching: the session acts in one of the user's teams at a time. */
export const sessionTeamRoutes = [
  defineRoute({
    method: 'GET',
    path: '/auth/teams',
    operationId: 'listSessionTeams',
    summary: 'The signed-in user’s teams, with their role in each (the dashboard’s team switcher)',
    tag: 'auth',
    permission: 'session',
    scope: null,
    responses: {
      200: {
        description: 'Every team of the user',
        schema: z.object({ object: z.literal('list'), data: z.array(membershipShape) }),
      },
    },
    handler: async ({ session, services }) => {
      const teams = await services.userSessions.teamsOf(session.user.id);
      return {
        status: 200,
        body: {
          object: 'list',
          data: teams.map(({ team, role }) => ({
            object: 'team_membership',
            team: { id: team.id, name: team.name },
            role,
            current: team.id === session.team?.id,
          })),
        },
      };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/auth/teams/switch',
    operationId: 'switchTeam',
    summary: 'Make another of the user’s teams the session’s current team',
    tag: 'auth',
    permission: 'session',
    scope: null,
    body: z.object({ team_id: z.string().uuid('must be a team id') }).strict(),
    exampleBody: { team_id: '0190a0a0-0000-7000-8000-000000000000' },
    responses: {
      200: { description: 'The session, in the chosen team; Set-Cookie rotates the cookie', schema: sessionShape },
    },
    // Another team is another role: the cookie is rotated (Set-Cookie), the old one ends.
    handler: async ({ body, session, services }) => {
      const switched = await services.userSessions.switchTeam(session, body.team_id);
      return signedIn(200, await services.userSessions.rotate(switched), services);
    },
  }),
];
