import type { Knex } from 'knex';
import type { AccountTokenKind } from './account.types.js';
import { AccountTokenRepository } from './account-token.repository.js';
import { SessionRepository } from './session.repository.js';
import { UserRepository } from './user.repository.js';

/**
 * What a password change makes worthless: every link that sets a password (reset links and the
 * operator's set-password links are one kind, `password_reset`) and every pending MFA challenge
 * (it proves the old password). Verification links stay: they prove the mailbox, not a password.
 */
export const SPENT_BY_PASSWORD_CHANGE: readonly AccountTokenKind[] = ['password_reset', 'mfa_challenge'];

/**
 * The one way an existing user's password changes (a reset link, a set-password link, the
 * operator's `user create --password-stdin`). Inside the caller's transaction, with the new
 * hash: every session of the user ends (whoever held one may be why the password changed) and
 * every outstanding password-setting token and MFA challenge is used up, so an older link
 * cannot undo the change. New users (signup, an invitation's account) have none of these yet.
 */
export class PasswordChange {
  private readonly users: UserRepository;
  private readonly tokens: AccountTokenRepository;
  private readonly sessions: SessionRepository;

  constructor(knex: Knex) {
    this.users = new UserRepository(knex);
    this.tokens = new AccountTokenRepository(knex);
    this.sessions = new SessionRepository(knex);
  }

  /**
   * Call first in the transaction, before using a link: two links of one user used at once
   * then queue on the user's row (the second finds its link spent) instead of deadlocking on
   * each other's token rows.
   */
  async lock(userId: string, trx: Knex): Promise<void> {
    await this.users.lock(userId, trx);
  }

  async apply(userId: string, passwordHash: string, now: Date, trx: Knex): Promise<void> {
    await this.users.setPassword(userId, passwordHash, now, trx);
    await this.tokens.spendAllOfUser(userId, SPENT_BY_PASSWORD_CHANGE, now, trx);
    await this.sessions.revokeAllOfUser(userId, now, trx);
  }
}
