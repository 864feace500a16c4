import { createHash, randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type { Clock } from '../../lib/clock.js';
import type { SecretBox } from '../../lib/crypto/secret-box.js';
import { InvalidPermissionError, UnprocessableValidationError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { TOKEN_LIFETIME_MS, type IssuedSession, type MfaStatus, type User } from './account.types.js';
import { AccountTokenRepository } from './account-token.repository.js';
import type { AttemptThrottle } from './attempt-throttle.js';
import { MfaRepository } from './mfa.repository.js';
import { verifyPassword } from './password-hash.js';
import { hashSecretToken, newSecretToken } from './secret-token.js';
import type { SessionService } from './session.service.js';
import { newTotpSecret, totpStep, totpUri } from './totp.js';
import { UserRepository } from './user.repository.js';

export type MfaServiceDeps = {
  knex: Knex;
  clock: Clock;
  box: SecretBox;
  throttle: AttemptThrottle;
  sessions: SessionService;
};

const RECOVERY_CODES = 10;
const codeHash = (code: string) =>
  createHash('sha256')
    .update(code.toLowerCase().replace(/[^a-z0-9]/g, ''))
    .digest('hex');
/** `xxxxx-xxxxx`, 50 random bits in an unambiguous alphabet. */
function recoveryCode(): string {
  const alphabet = 'abcdefghjkmnpqrstuvwxyz23456789';
  const chars = [...randomBytes(10)].map((b) => alphabet[b % alphabet.length]).join('');
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}
const wrongCode = () =>
  new UnprocessableValidationError('The code is wrong, expired or already used', {
    errors: [{ path: 'code', message: 'is wrong, expired or already used' }],
  });

/**
 * TOTP second factor: enrol (secret and otpauth URI), confirm with a code (MFA turns on, ten
 * recovery codes shown once and stored hashed), and the login challenge it then requires.
 * Codes and recovery codes are single-use, and guessing is throttled per user like logins.
 */
export class MfaService {
  private readonly mfa: MfaRepository;
  private readonly users: UserRepository;
  private readonly tokens: AccountTokenRepository;

  constructor(private readonly deps: MfaServiceDeps) {
    this.mfa = new MfaRepository(deps.knex);
    this.users = new UserRepository(deps.knex);
    this.tokens = new AccountTokenRepository(deps.knex);
  }

  async status(user: User): Promise<MfaStatus> {
    const row = await this.mfa.find(user.id);
    return {
      enabled: Boolean(row?.enabledAt),
      enabledAt: row?.enabledAt ?? null,
      enrolling: Boolean(row && !row.enabledAt),
      recoveryCodesRemaining: row?.enabledAt ? row.recoveryCodes.length : 0,
      hasPassword: (await this.users.passwordHash(user.id)) !== null,
    };
  }

  async enrol(user: User): Promise<{ secret: string; uri: string }> {
    if ((await this.mfa.find(user.id))?.enabledAt)
      throw new UnprocessableValidationError('MFA is already on: disable it before enrolling again');
    const secret = newTotpSecret();
    await this.mfa.startEnrolment(user.id, this.deps.box.seal(secret), this.deps.clock.now());
    return { secret, uri: totpUri(secret, user.email) };
  }

  /** Turns MFA on with a first code; answers the recovery codes, the only time they are shown. */
  async confirm(user: User, code: string, ip: string): Promise<string[]> {
    const row = await this.mfa.find(user.id);
    if (!row || row.enabledAt) throw new UnprocessableValidationError('No MFA enrolment is in progress');
    await this.deps.throttle.take('mfa', user.id, ip);
    const step = totpStep(this.deps.box.open(row.secretSealed), code, this.deps.clock.now());
    if (step === null) throw wrongCode();
    const codes = Array.from({ length: RECOVERY_CODES }, recoveryCode);
    if (!(await this.mfa.enable(user.id, step, codes.map(codeHash), this.deps.clock.now()))) throw wrongCode();
    return codes;
  }

  /** Turns MFA off; the password proves it is the user, not someone at an unlocked screen. */
  async disable(user: User, password: string, ip: string): Promise<void> {
    await this.deps.throttle.take('login', user.email, ip);
    const stored = await this.users.passwordHash(user.id);
    if (!stored || !(await verifyPassword(password, stored)))
      throw new InvalidPermissionError('Wrong password: MFA stays on');
    await this.mfa.remove(user.id);
  }

  /** Whether the user must answer a challenge after the password (MFA on). */
  async required(userId: string): Promise<boolean> {
    return Boolean((await this.mfa.find(userId))?.enabledAt);
  }

  async startChallenge(userId: string): Promise<{ token: string; expiresAt: Date }> {
    const now = this.deps.clock.now();
    const { token, hash } = newSecretToken();
    const expiresAt = new Date(now.getTime() + TOKEN_LIFETIME_MS.mfa_challenge);
    await this.tokens.insert({
      id: newId(),
      userId,
      kind: 'mfa_challenge',
      tokenHash: hash,
      expiresAt,
      createdAt: now,
    });
    return { token, expiresAt };
  }

  /** Answers a login challenge with a TOTP code or a recovery code; the session it starts. */
  async verifyChallenge(
    input: { challengeToken: string; code?: string; recoveryCode?: string },
    ip: string,
  ): Promise<IssuedSession> {
    const now = this.deps.clock.now();
    const tokenHash = hashSecretToken(input.challengeToken);
    const userId = await this.tokens.peek('mfa_challenge', tokenHash, now);
    const row = userId ? await this.mfa.find(userId) : undefined;
    if (!userId || !row?.enabledAt)
      throw new UnprocessableValidationError('The challenge is invalid or expired: log in again', {
        errors: [{ path: 'challenge_token', message: 'is invalid or expired' }],
      });
    await this.deps.throttle.take('mfa', userId, ip);
    if (!(await this.checkFactor(userId, row, input, now))) throw wrongCode();
    const used = await this.deps.knex.transaction((trx) => this.tokens.consume('mfa_challenge', tokenHash, now, trx));
    if (!used) throw wrongCode();
    return this.deps.sessions.issue((await this.users.findById(userId))!);
  }

  private async checkFactor(
    userId: string,
    row: NonNullable<Awaited<ReturnType<MfaRepository['find']>>>,
    input: { code?: string; recoveryCode?: string },
    now: Date,
  ): Promise<boolean> {
    if (input.recoveryCode !== undefined) {
      const hash = codeHash(input.recoveryCode);
      return row.recoveryCodes.includes(hash) && this.mfa.useRecoveryCode(userId, row.recoveryCodes, hash);
    }
    const step = totpStep(this.deps.box.open(row.secretSealed), input.code ?? '', now);
    return step !== null && this.mfa.useStep(userId, step);
  }
}
