import type { Knex } from 'knex';
import type { Clock } from '../../lib/clock.js';
import { ValidationError } from '../../lib/errors.js';
import type { AccountRecoveryService } from './account-recovery.service.js';
import { SET_PASSWORD_LIFETIME_MS, type User } from './account.types.js';
import { MembershipRepository } from './membership.repository.js';
import type { MfaService } from './mfa.service.js';
import { hashPassword } from './password-hash.js';
import { PasswordChange } from './password-change.js';
import { UserRepository } from './user.repository.js';
import { upsertOperatorCreatedUser } from './operator-created-user.js';

/** What the admin API needs to know of a signed-in person. */
export type OperatorAccess = { operator: boolean; mfaEnabled: boolean };

type OperatorDeps = { knex: Knex; clock: Clock; recovery: AccountRecoveryService; mfa: MfaService };

/**
 * Operators: the people who run the appliance. A user flag (users.operator), set only by
 * `mailroom user create --operator`; an operator belongs to no team, and reaches the admin API
 * only once MFA is on (see api/operator-auth.ts).
 */
export class OperatorService {
  private readonly users: UserRepository;
  private readonly memberships: MembershipRepository;
  private readonly passwords: PasswordChange;

  constructor(private readonly deps: OperatorDeps) {
    this.users = new UserRepository(deps.knex);
    this.memberships = new MembershipRepository(deps.knex);
    this.passwords = new PasswordChange(deps.knex);
  }

  isOperator(userId: string): Promise<boolean> {
    return this.users.isOperator(userId);
  }

  async access(userId: string): Promise<OperatorAccess> {
    const operator = await this.isOperator(userId);
    return { operator, mfaEnabled: operator ? await this.deps.mfa.required(userId) : false };
  }

  /**
   * Creates the operator (or makes an existing user one, found by address). A team member is
   * refused: an operator belongs to no team, and mixing both would give a team's person the
   * whole appliance. Without a password the answer carries a one-time set-password token.
   */
  async create(input: {
    email: string;
    name?: string;
    password?: string;
  }): Promise<{ user: User; created: boolean; setPasswordToken: string | null }> {
    const now = this.deps.clock.now();
    const email = input.email.trim().toLowerCase();
    const name = input.name?.trim() || null;
    const passwordHash = input.password ? await hashPassword(input.password) : null;
    const known = await this.users.findByEmail(email);
    if (known && (await this.memberships.ofUser(known.id)).length > 0)
      throw new ValidationError(
        `${email} is a member of a team: an operator belongs to no team (use another address for the operator)`,
      );
    const { user, created } = await this.deps.knex.transaction(async (trx) => {
      const upserted = await upsertOperatorCreatedUser({ users: this.users, passwords: this.passwords }, trx, {
        email,
        name,
        passwordHash,
        now,
      });
      const { user } = upserted;
      await trx('users').where({ id: user.id }).update({ operator: true, updated_at: now });
      return upserted;
    });
    const setPasswordToken = passwordHash
      ? null
      : await this.deps.recovery.issueToken(user.id, 'password_reset', SET_PASSWORD_LIFETIME_MS);
    return { user, created, setPasswordToken };
  }
}
