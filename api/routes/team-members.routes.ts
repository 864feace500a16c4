import { z } from 'zod';
import { auditEvent } from '../audit-events.js';
import { defineRoute } from '../route.js';
import { deletedSchema, uuidParam } from '../schemas.js';
import { serializeMember } from '../serializers/team.serializer.js';

const tag = 'team';
const params = z.object({ member_id: uuidParam('Team member id') });
const isolation = { param: 'member_id', resource: 'team_member' };
const memberShape = z
  .object({ object: z.literal('team_member'), id: z.string(), email: z.string(), role: z.string() })
  .passthrough();

/**
 * A team admin manages who is in the team: role changes and removals (invitations add people).
 * Keys only: an OAuth token never manages membership (spec: no scope reaches membership).
 */
export const teamMemberRoutes = [
  defineRoute({
    method: 'PATCH',
    path: '/team/members/:member_id',
    operationId: 'updateTeamMember',
    summary: "Change a member's role (only an owner makes or unmakes an owner; a team keeps one)",
    tag,
    permission: 'full_access',
    scope: null,
    params,
    isolation,
    body: z.object({ role: z.enum(['owner', 'admin', 'member']) }).strict(),
    exampleBody: { role: 'admin' },
    responses: { 200: { description: 'The member with the new role', schema: memberShape } },
    audit: ({ params: { member_id } }, result) => {
      const member = result.body as { email: string; role: string; previous_role: string };
      return auditEvent('member.role_changed', 'team_member', member_id, {
        email: member.email,
        role: member.role,
        previous_role: member.previous_role,
      });
    },
    handler: async ({ params, body, caller, services }) => {
      const { member, previous } = await services.teamMembers.changeRole(caller, params.member_id, body.role);
      return { status: 200, body: { ...serializeMember(member), previous_role: previous } };
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/team/members/:member_id',
    operationId: 'removeTeamMember',
    summary: 'Remove a member from the team (their sessions lose the team at once)',
    tag,
    permission: 'full_access',
    scope: null,
    params,
    isolation,
    responses: {
      200: {
        description: 'Removed',
        schema: deletedSchema('team_member').extend({ email: z.string(), role: z.string() }),
      },
    },
    audit: ({ params: { member_id } }, result) =>
      auditEvent('member.removed', 'team_member', member_id, {
        email: (result.body as { email: string }).email,
        role: (result.body as { role: string }).role,
      }),
    handler: async ({ params, caller, services }) => {
      const member = await services.teamMembers.remove(caller, params.member_id);
      const { id, email, role } = member;
      return { status: 200, body: { object: 'team_member', id, email, role, deleted: true } };
    },
  }),
];
