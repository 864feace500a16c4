import type { Knex } from 'knex';
import { newId } from '../../lib/ids.js';
import type { User } from './account.types.js';
import { InvitationRepository } from './invitation.repository.js';
import type { Invitation } from './invitation.types.js';
import { MembershipRepository } from './membership.repository.js';
import { hashPassword } from './password-hash.js';
import { UserRepository } from './user.repository.js';

/**
 * The two ways into a team by invitation, each one transaction: the invitation is consumed and
 * the membership added together, so a double-submit (or two tabs) makes one member, and a
 * failure leaves the invitation usable. Both answer false when the invitation was used meanwhile.
 */
export class InvitationJoin {
  private readonly invitations: InvitationRepository;
  private readonly users: UserRepository;
  private readonly memberships: MembershipRepository;

  constructor(private readonly knex: Knex) {
    this.invitations = new InvitationRepository(knex);
    this.users = new UserRepository(knex);
    this.memberships = new MembershipRepository(knex);
  }

  /** An existing user joins. Already a member (an owner following an old link): the role stays. */
  async existingUser(invitation: Invitation, user: User, now: Date): Promise<boolean> {
    const member = (await this.memberships.roleIn(user.id, invitation.teamId)) !== null;
    return this.knex.transaction(async (trx) => {
      if (!(await this.invitations.consume(invitation.id, user.id, now, trx))) return false;
      if (!member) await this.link(invitation, user, now, trx);
      return true;
    });
  }

  /**
   * A new user joins: the account is created with the invitation's address, verified (the
   * mailed link proved the mailbox). A taken address rejects with the database's unique
   * violation, for the caller to word.
   */
  async newUser(
    invitation: Invitation,
    input: { password: string; name?: string | undefined },
    now: Date,
  ): Promise<User | undefined> {
    const passwordHash = await hashPassword(input.password);
    const user: User = {
      id: newId(),
      email: invitation.email,
      name: input.name || null,
      emailVerifiedAt: now,
      createdAt: now,
    };
    const joined = await this.knex.transaction(async (trx) => {
      if (!(await this.invitations.consume(invitation.id, user.id, now, trx))) return false;
      await this.users.insert({ ...user, passwordHash }, trx);
      await this.link(invitation, user, now, trx);
      return true;
    });
    return joined ? user : undefined;
  }

  private link(invitation: Invitation, user: User, now: Date, trx: Knex): Promise<void> {
    const { teamId, role } = invitation;
    return this.memberships.link({ userId: user.id, teamId, email: user.email, name: user.name, role, now }, trx);
  }
}
