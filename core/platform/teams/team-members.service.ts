import type { Knex } from 'knex';
import { InvalidPermissionError, NotFoundError, UnprocessableValidationError } from '../../../lib/errors.js';
import { isTeamAdmin, type Caller } from '../auth/caller.js';
import { TeamRepository } from './team.repository.js';
import type { TeamMember } from './team.types.js';

export type MemberRole = TeamMember['role'];

/**
 * Changing a member's role and removing a member: the team admin's side of membership
 * (invitations add people). The rules keep a team governable: only an owner makes or unmakes an
 * owner or touches another owner, an admin manages admins and members, and the last owner can be
 * neither demoted nor removed (an owner who wants out hands ownership over first).
 */
export class TeamMembersService {
  constructor(private readonly deps: { knex: Knex }) {}

  async changeRole(
    caller: Caller,
    memberId: string,
    role: MemberRole,
  ): Promise<{ member: TeamMember; previous: MemberRole }> {
    return this.deps.knex.transaction(async (trx) => {
      const member = await this.find(trx, caller.team.id, memberId);
      this.assertMayManage(caller, member, role);
      if (member.role === 'owner' && role !== 'owner') await this.assertAnotherOwner(trx, caller.team.id, member.id);
      await trx('team_members').where({ id: member.id }).update({ role });
      return { member: { ...member, role }, previous: member.role };
    });
  }

  async remove(caller: Caller, memberId: string): Promise<TeamMember> {
    return this.deps.knex.transaction(async (trx) => {
      const member = await this.find(trx, caller.team.id, memberId);
      this.assertMayManage(caller, member, member.role);
      if (member.role === 'owner') await this.assertAnotherOwner(trx, caller.team.id, member.id);
      // The person's sessions lose the team at their next request: a session reads its role each time.
      await trx('team_members').where({ id: member.id }).delete();
      return member;
    });
  }

  private async find(trx: Knex, teamId: string, memberId: string): Promise<TeamMember> {
    const member = (await new TeamRepository(trx).listMembers(teamId)).find((candidate) => candidate.id === memberId);
    if (!member) throw new NotFoundError('Team member not found');
    return member;
  }

  private assertMayManage(caller: Caller, member: TeamMember, newRole: MemberRole): void {
    if (!isTeamAdmin(caller)) throw new InvalidPermissionError('Only a team owner or admin can manage members');
    const callerIsOwner = caller.member ? caller.member.role === 'owner' : true;
    if ((member.role === 'owner' || newRole === 'owner') && !callerIsOwner)
      throw new InvalidPermissionError('Only an owner can make, change or remove an owner');
  }

  private async assertAnotherOwner(trx: Knex, teamId: string, memberId: string): Promise<void> {
    const owners = (await new TeamRepository(trx).listMembers(teamId)).filter(
      (candidate) => candidate.role === 'owner' && candidate.id !== memberId,
    );
    if (owners.length === 0)
      throw new UnprocessableValidationError('A team keeps at least one owner: make another member owner first', {
        details: { errors: [{ path: 'role', message: 'the last owner cannot be demoted or removed' }] },
      });
  }
}
