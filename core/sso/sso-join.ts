import type { Knex } from 'knex';
import { readBoolean } from '../../db/dialect.js';
import { newId } from '../../lib/ids.js';
import type { Role, User } from '../accounts/account.types.js';
import { InvitationRepository } from '../accounts/invitation.repository.js';
import { MembershipRepository } from '../accounts/membership.repository.js';
import { UserRepository } from '../accounts/user.repository.js';
import { SsoFlowError } from './sso.types.js';

export type JoinResult = { user: User; joined: boolean; role: Role; invitationId: string | null };

/**
 * Just-in-time membership for a person the team's provider vouched for, in one transaction: an
 * unknown address becomes a user (address verified by the provider, no password: they sign in
 * through the provider); someone not yet in the team joins as member, or with the role of a
 * pending invitation of their address, which is accepted on the way. A member keeps their role.
 * An operator's account is never signed in this way.
 */
export class SsoJoin {
  private readonly users: UserRepository;
  private readonly memberships: MembershipRepository;
  private readonly invitations: InvitationRepository;

  constructor(private readonly knex: Knex) {
    this.users = new UserRepository(knex);
    this.memberships = new MembershipRepository(knex);
    this.invitations = new InvitationRepository(knex);
  }

  /** The address of the person who started a test round trip (the audit log names them). */
  async emailOf(userId: string): Promise<string | null> {
    return (await this.users.findById(userId))?.email ?? null;
  }

  async join(teamId: string, identity: { email: string; name: string | null }, now: Date): Promise<JoinResult> {
    return this.knex.transaction(async (trx) => {
      const user = await this.userFor(identity, now, trx);
      // An operator belongs to no team, and reaches the admin API with password and MFA only.
      const row = (await trx('users').where({ id: user.id }).first('operator')) as { operator: unknown } | undefined;
      if (row && readBoolean(row.operator))
        throw new SsoFlowError('not_configured', 'An operator of the appliance signs in with password and MFA');
      const current = await trx('team_members').where({ team_id: teamId, user_id: user.id }).first('role');
      if (current) return { user, joined: false, role: current.role as Role, invitationId: null };
      const invited = await this.invitations.findPendingInTeam(teamId, user.email, now, trx);
      if (invited) await this.invitations.consume(invited.id, user.id, now, trx);
      const role: Role = invited?.role ?? 'member';
      await this.memberships.link({ userId: user.id, teamId, email: user.email, name: user.name, role, now }, trx);
      return { user, joined: true, role, invitationId: invited?.id ?? null };
    });
  }

  private async userFor(identity: { email: string; name: string | null }, now: Date, trx: Knex): Promise<User> {
    const found = await this.users.findByEmail(identity.email, trx);
    if (found) {
      // The provider verified the address: a user who never clicked the mailed link has now.
      if (!found.emailVerifiedAt) await this.users.markVerified(found.id, now, trx);
      return { ...found, emailVerifiedAt: found.emailVerifiedAt ?? now };
    }
    const user: User = {
      id: newId(),
      email: identity.email,
      name: identity.name,
      emailVerifiedAt: now,
      createdAt: now,
    };
    await this.users.insert({ ...user, passwordHash: null }, trx);
    return user;
  }
}
