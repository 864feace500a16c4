import type { Knex } from 'knex';
import type { Clock } from '../../lib/clock.js';
import { UnprocessableValidationError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import type { Logger } from '../../lib/logger.js';
import type { AccountMailer } from './account-mailer.js';
import { TOKEN_LIFETIME_MS, type AccountTokenKind, type User } from './account.types.js';
import { AccountTokenRepository } from './account-token.repository.js';
import type { AttemptThrottle } from './attempt-throttle.js';
import { DeferredWork } from './deferred-work.js';
import { PasswordChange } from './password-change.js';
import { hashPassword } from './password-hash.js';
import { hashSecretToken, newSecretToken } from './secret-token.js';
import { UserRepository } from './user.repository.js';

export type AccountRecoveryDeps = {
  knex: Knex;
  clock: Clock;
  mailer: AccountMailer;
  throttle: AttemptThrottle;
  logger: Logger;
  /** Where a reset request's token and mail go after the answer (default: the next turn of the loop). */
  deferred?: DeferredWork;
  /** Told of every address just verified (the `invite` policy joins its invitation's team). */
  onVerified?: (user: User) => Promise<void>;
};

const invalidToken = () =>
  new UnprocessableValidationError('The token is invalid, expired or already used', {
    errors: [{ path: 'token', message: 'is invalid, expired or already used' }],
  });

/** E-mail verification and password reset: single-use tokens, stored hashed, that expire. */
export class AccountRecoveryService {
  private readonly users: UserRepository;
  private readonly tokens: AccountTokenRepository;
  private readonly passwords: PasswordChange;
  private readonly deferred: DeferredWork;

  constructor(private readonly deps: AccountRecoveryDeps) {
    this.users = new UserRepository(deps.knex);
    this.tokens = new AccountTokenRepository(deps.knex);
    this.passwords = new PasswordChange(deps.knex);
    this.deferred = deps.deferred ?? new DeferredWork(deps.logger);
  }

  /** A new token for the user; only its hash is kept. */
  async issueToken(userId: string, kind: AccountTokenKind, lifetimeMs = TOKEN_LIFETIME_MS[kind]): Promise<string> {
    const now = this.deps.clock.now();
    const { token, hash } = newSecretToken();
    await this.tokens.insert({
      id: newId(),
      userId,
      kind,
      tokenHash: hash,
      expiresAt: new Date(now.getTime() + lifetimeMs),
      createdAt: now,
    });
    return token;
  }

  async sendVerification(user: User): Promise<void> {
    await this.deps.mailer.sendVerification(user, await this.issueToken(user.id, 'verify_email'));
  }

  /** Resend for a signed-in user; false when the address is verified already (nothing sent). */
  async resendVerification(user: User, ip: string): Promise<boolean> {
    if (user.emailVerifiedAt) return false;
    await this.deps.throttle.take('verify-resend', user.email, ip);
    await this.sendVerification(user);
    return true;
  }

  async verifyEmail(token: string): Promise<User> {
    const now = this.deps.clock.now();
    const userId = await this.deps.knex.transaction(async (trx) => {
      const id = await this.tokens.consume('verify_email', hashSecretToken(token), now, trx);
      if (id) await this.users.markVerified(id, now, trx);
      return id;
    });
    if (!userId) throw invalidToken();
    const user = (await this.users.findById(userId))!;
    await this.deps.onVerified?.(user);
    return user;
  }

  /**
   * Sends a reset link when the address has an account. The caller answers the same either way
   * (no enumeration), and so that the time to answer does not tell either, both paths do the
   * same work before it: the throttle (unknown addresses count too) and one look-up. The token
   * and the mail come after the answer; a failure there is logged (the mail itself goes through
   * the durable send path, or to the log when no sender is configured).
   */
  async requestPasswordReset(email: string, ip: string): Promise<void> {
    await this.deps.throttle.take('reset', email, ip);
    const user = await this.users.findByEmail(email);
    if (!user) return;
    this.deferred.run('password-reset mail', { userId: user.id }, async () => {
      await this.deps.mailer.sendPasswordReset(user, await this.issueToken(user.id, 'password_reset'));
    });
  }

  /**
   * Sets the password with a reset (or set-password) link, in one transaction with what every
   * password change does (PasswordChange): every session of the user ends, and every other
   * outstanding reset or set-password link and MFA challenge is used up.
   */
  async resetPassword(token: string, password: string): Promise<User> {
    const now = this.deps.clock.now();
    const passwordHash = await hashPassword(password);
    const tokenHash = hashSecretToken(token);
    const userId = await this.deps.knex.transaction(async (trx) => {
      const owner = await this.tokens.peek('password_reset', tokenHash, now, trx);
      if (!owner) return undefined;
      await this.passwords.lock(owner, trx);
      const id = await this.tokens.consume('password_reset', tokenHash, now, trx);
      if (id) await this.passwords.apply(id, passwordHash, now, trx);
      return id;
    });
    if (!userId) throw invalidToken();
    const user = (await this.users.findById(userId))!;
    await this.deps.onVerified?.(user);
    return user;
  }

  /** Waits for the mail of reset requests already answered (shutdown, tests). */
  drain(): Promise<void> {
    return this.deferred.drain();
  }

  /** Retention: tokens that expired more than a day ago. */
  async purgeExpired(): Promise<number> {
    return this.tokens.deleteExpiredBefore(new Date(this.deps.clock.now().getTime() - 86_400_000));
  }
}
