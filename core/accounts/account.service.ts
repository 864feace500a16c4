import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { isUniqueViolation } from '../../db/errors.js';
import type { Clock } from '../../lib/clock.js';
import { ForbiddenValidationError, InvalidApiKeyError, UnprocessableValidationError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import type { Team } from '../platform/teams/team.types.js';
import type { AccountRecoveryService } from './account-recovery.service.js';
import type { LoginInput, SignupInput } from './account.schemas.js';
import {
  SET_PASSWORD_LIFETIME_MS,
  type IssuedSession,
  type LoginOutcome,
  type Role,
  type SsoPasswordRule,
  type User,
} from './account.types.js';
import type { AttemptThrottle } from './attempt-throttle.js';
import type { InvitationService } from './invitation.service.js';
import type { MfaService } from './mfa.service.js';
import { MembershipRepository } from './membership.repository.js';
import { PasswordChange } from './password-change.js';
import { hashPassword, verifyPassword } from './password-hash.js';
import type { SessionService } from './session.service.js';
import { UserRepository } from './user.repository.js';
import { upsertOperatorCreatedUser } from './operator-created-user.js';

export type SignupPolicy = 'closed' | 'invite' | 'open';

export type AccountServiceDeps = {
  knex: Knex;
  clock: Clock;
  signup: SignupPolicy;
  throttle: AttemptThrottle;
  sessions: SessionService;
  recovery: AccountRecoveryService;
  mfa: Pick<MfaService, 'required' | 'startChallenge'>;
  /** Signup under the `invite` policy joins the invitation's team. */
  invitations: Pick<InvitationService, 'signup'>;
  /** Creates a team with the default plan, inside `trx` (see TeamService.create). */
  createTeam: (name: string, trx: Knex) => Promise<Team>;
  /** Whether a team exists (the operator's `user create`). */
  teamExists: (teamId: string) => Promise<boolean>;
};

/**
 * Login's one refusal, whatever was wrong: unknown address, wrong password, or a user with no
 * password yet. 401 with the spec's name for a credential that resolves to nothing (the spec's
 * 401 names are all about credentials; a password is the session's credential).
 */
const wrongCredentials = () => new InvalidApiKeyError('Wrong e-mail address or password');

/** An address whose team requires single sign-on: the sign-in page sends it to the provider. */
const ssoRequired = () =>
  new ForbiddenValidationError('This address signs in through its team’s single sign-on, not with a password', {
    details: { next: 'sso' },
  });

/** Under enforced single sign-on, the enforcing team's owners and the appliance's operators keep their password. */
const keepsPassword = (ownerOfTeam: boolean, operator: boolean) => ownerOfTeam || operator;

/** Accounts: sign-up (by policy), login, and users the operator creates. */
export class AccountService {
  private readonly users: UserRepository;
  private readonly memberships: MembershipRepository;
  private readonly passwords: PasswordChange;
  /** Hashed once, on the first unknown address: its check costs what a real one does. */
  private dummyHash: Promise<string> | undefined;
  /** Set by the single sign-on group, built after this one (see app/services.ts). */
  private ssoRule: SsoPasswordRule | undefined;

  constructor(private readonly deps: AccountServiceDeps) {
    this.users = new UserRepository(deps.knex);
    this.memberships = new MembershipRepository(deps.knex);
    this.passwords = new PasswordChange(deps.knex);
  }

  /**
   * A new user, signed in; a verification mail goes out. Policy `open`: with a team of their own.
   * Policy `invite`: only an address with a pending invitation, which joins the inviting team.
   */
  async signup(input: SignupInput): Promise<IssuedSession> {
    if (this.deps.signup === 'closed') {
      throw new ForbiddenValidationError('Sign-up is closed on this appliance: ask its operator for an account');
    }
    const issued = await (
      this.deps.signup === 'invite' ? this.deps.invitations.signup(input) : this.signupWithOwnTeam(input)
    ).catch((err: unknown) => {
      if (!isUniqueViolation(err)) throw err;
      throw new UnprocessableValidationError('An account with this e-mail address exists: log in instead', {
        errors: [{ path: 'email', message: 'is already registered' }],
      });
    });
    await this.deps.recovery.sendVerification(issued.session.user);
    return issued;
  }

  /** Password sign-in then asks single sign-on whether an address may use it (enforcement). */
  requireSsoWith(rule: SsoPasswordRule): void {
    this.ssoRule = rule;
  }

  /**
   * A session, or with MFA on a challenge: the password alone then proves nothing yet. On a
   * domain whose team enforces single sign-on only that team's owners get past the password
   * (their recovery path when the provider is down or misconfigured); everyone else, right
   * password or wrong, unknown address or not, gets the same 403 pointing to single sign-on.
   */
  async login(input: LoginInput, ip: string): Promise<LoginOutcome> {
    await this.deps.throttle.take('login', input.email, ip);
    const enforced = (await this.ssoRule?.(input.email)) ?? null;
    const found = await this.users.credentials(input.email);
    // An unknown address (or a user without a password) still costs one scrypt: same timing.
    const stored = found?.passwordHash ?? (await this.dummy());
    const matches = await verifyPassword(input.password, stored);
    const valid = Boolean(found?.passwordHash) && matches;
    if (enforced && !(valid && (await this.passwordStaysFor(found!.user.id, enforced.teamId)))) throw ssoRequired();
    if (!found || !valid) throw wrongCredentials();
    const bypass = enforced ? { teamId: enforced.teamId, userId: found.user.id, email: found.user.email } : undefined;
    if (await this.deps.mfa.required(found.user.id)) {
      const challenge = await this.deps.mfa.startChallenge(found.user.id);
      return { kind: 'mfa', challengeToken: challenge.token, expiresAt: challenge.expiresAt, passwordBypass: bypass };
    }
    return { kind: 'session', issued: await this.deps.sessions.issue(found.user), passwordBypass: bypass };
  }

  /**
   * Single sign-on is now enforced for `domains` by `teamId`: the sessions of everyone who may no
   * longer sign in with a password there, other than those opened through the provider, end now
   * (otherwise a password session opened before enforcement would last its 30 days). Those who
   * keep password sign-in (the team's owners, the appliance's operators) keep their sessions.
   */
  async endPasswordSessions(teamId: string, domains: readonly string[]): Promise<number> {
    const owners = new Set(await this.memberships.userIdsWithRole(teamId, 'owner'));
    const covered = await this.users.onDomains(domains);
    const ending = covered.filter((user) => !keepsPassword(owners.has(user.id), user.operator));
    return this.deps.sessions.revokeNotViaSso(ending.map((user) => user.id));
  }

  /**
   * Who keeps password sign-in on a domain whose team enforces single sign-on: the team's owners
   * (their recovery path), and the appliance's operators (in no team; their password and MFA are
   * what guards the admin API).
   */
  private async passwordStaysFor(userId: string, teamId: string): Promise<boolean> {
    return keepsPassword(
      (await this.memberships.roleIn(userId, teamId)) === 'owner',
      await this.users.isOperator(userId),
    );
  }

  /**
   * The operator's `user create`: the user (created, or found by address) becomes a member of
   * the team with `role`. Without a password, the answer carries a one-time set-password token
   * valid 24 hours. Operator-created addresses count as verified: the operator vouches for them.
   * A password given for an existing user is a password change (PasswordChange): their sessions
   * end and their outstanding reset and set-password links die.
   */
  async createByOperator(input: {
    email: string;
    teamId: string;
    role: Role;
    name?: string;
    password?: string;
  }): Promise<{ user: User; created: boolean; setPasswordToken: string | null }> {
    if (!(await this.deps.teamExists(input.teamId))) throw new UnprocessableValidationError('No such team');
    const now = this.deps.clock.now();
    const email = input.email.trim().toLowerCase();
    const passwordHash = input.password ? await hashPassword(input.password) : null;
    const { user, created } = await this.deps.knex.transaction(async (trx) => {
      const name = input.name?.trim() || null;
      const upserted = await upsertOperatorCreatedUser({ users: this.users, passwords: this.passwords }, trx, {
        email,
        name,
        passwordHash,
        now,
      });
      const { user } = upserted;
      await this.memberships.link(
        { userId: user.id, teamId: input.teamId, email, name: user.name, role: input.role, now },
        trx,
      );
      return upserted;
    });
    const setPasswordToken = passwordHash
      ? null
      : await this.deps.recovery.issueToken(user.id, 'password_reset', SET_PASSWORD_LIFETIME_MS);
    return { user, created, setPasswordToken };
  }

  private async signupWithOwnTeam(input: SignupInput): Promise<IssuedSession> {
    const now = this.deps.clock.now();
    const passwordHash = await hashPassword(input.password);
    const user: User = {
      id: newId(),
      email: input.email.toLowerCase(),
      name: input.name || null,
      emailVerifiedAt: null,
      createdAt: now,
    };
    const team = await this.deps.knex.transaction(async (trx) => {
      await this.users.insert({ ...user, passwordHash }, trx);
      const team = await this.deps.createTeam(teamNameFor(user), trx);
      await this.memberships.link(
        { userId: user.id, teamId: team.id, email: user.email, name: user.name, role: 'owner', now },
        trx,
      );
      return team;
    });
    return this.deps.sessions.issue(user, team.id);
  }

  private dummy(): Promise<string> {
    this.dummyHash ??= hashPassword(randomBytes(16).toString('hex'));
    return this.dummyHash;
  }
}

/** "Ann's team", or the address's local part when no name was given; within the 80-character limit. */
function teamNameFor(user: User): string {
  const owner = (user.name ?? user.email.slice(0, user.email.indexOf('@'))).replace(/[\u0000-\u001f]/g, ' ').trim();
  return `${owner.slice(0, 73) || 'My'}'s team`;
}
