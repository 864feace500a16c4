import type { Knex } from 'knex';
import { isUniqueViolation } from '../../db/errors.js';
import type { Clock } from '../../lib/clock.js';
import {
  ForbiddenValidationError,
  InvalidPermissionError,
  MissingApiKeyError,
  MissingRequiredFieldError,
  NotFoundError,
  UnprocessableValidationError,
} from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import type { Team } from '../platform/teams/team.types.js';
import type { AccountMailer } from './account-mailer.js';
import type { SignupInput } from './account.schemas.js';
import { INVITATION_LIFETIME_MS, type IssuedSession, type SessionCaller, type User } from './account.types.js';
import { InvitationJoin } from './invitation-join.js';
import { InvitationRepository } from './invitation.repository.js';
import type { AcceptInvitationInput, CreateInvitationInput } from './invitation.schemas.js';
import { viewInvitation, type Invitation, type InvitationPreview, type InvitationView } from './invitation.types.js';
import { hashPassword } from './password-hash.js';
import { hashSecretToken, newSecretToken } from './secret-token.js';
import type { SessionService } from './session.service.js';
import { UserRepository } from './user.repository.js';

export type InvitationServiceDeps = {
  knex: Knex;
  clock: Clock;
  mailer: Pick<AccountMailer, 'sendInvitation'>;
  sessions: Pick<SessionService, 'issue' | 'switchTeam' | 'adoptTeam'>;
  findTeam: (teamId: string) => Promise<Team | undefined>;
};

/** What accepting did: joined with the caller's session, or created the account and a session. */
export type AcceptOutcome = { kind: 'joined'; session: SessionCaller } | { kind: 'created'; issued: IssuedSession };

/** The list shows what was sent in this window (pending ones are all younger: 7 days). */
const LIST_WINDOW_MS = 30 * 86_400_000;
const LIST_LIMIT = 100;
/** Retention: rows older than this are gone for good. */
const KEEP_MS = 90 * 86_400_000;

/** One answer for every unusable link, as for other tokens: which reason is not disclosed. */
const unusable = () => new NotFoundError('Invitation not found: the link is invalid, expired, used or revoked');

/** Team invitations: sent by owners and admins, accepted by the addressee through the mailed link. */
export class InvitationService {
  private readonly invitations: InvitationRepository;
  private readonly users: UserRepository;
  private readonly join: InvitationJoin;

  constructor(private readonly deps: InvitationServiceDeps) {
    this.invitations = new InvitationRepository(deps.knex);
    this.users = new UserRepository(deps.knex);
    this.join = new InvitationJoin(deps.knex);
  }

  /** Invites an address into the session's team; a pending invitation of the address is superseded. */
  async create(session: SessionCaller, input: CreateInvitationInput): Promise<InvitationView> {
    const team = managedTeam(session);
    const email = input.email.toLowerCase();
    if (await this.invitations.isMember(team.id, email)) {
      throw new UnprocessableValidationError('This address is already a member of the team', {
        errors: [{ path: 'email', message: 'is already a member of the team' }],
      });
    }
    const now = this.deps.clock.now();
    const { token, hash } = newSecretToken();
    const invitation: Invitation = {
      id: newId(),
      teamId: team.id,
      email,
      role: input.role,
      invitedByUserId: session.user.id,
      createdAt: now,
      expiresAt: new Date(now.getTime() + INVITATION_LIFETIME_MS),
      acceptedAt: null,
      acceptedByUserId: null,
      revokedAt: null,
    };
    await this.deps.knex.transaction(async (trx) => {
      await this.invitations.revokePendingFor(team.id, email, now, trx);
      await this.invitations.insert({ ...invitation, tokenHash: hash }, trx);
    });
    await this.deps.mailer.sendInvitation(invitation, team, session.user, token);
    return viewInvitation(invitation, now);
  }

  /** The session team's invitations of the last 30 days, newest first. */
  async list(session: SessionCaller): Promise<InvitationView[]> {
    const team = managedTeam(session);
    const now = this.deps.clock.now();
    const since = new Date(now.getTime() - LIST_WINDOW_MS);
    return (await this.invitations.listForTeam(team.id, since, LIST_LIMIT)).map((i) => viewInvitation(i, now));
  }

  /** Revokes an invitation of the session's team; revoking twice is harmless, an accepted one stays. */
  async revoke(session: SessionCaller, id: string): Promise<InvitationView> {
    const team = managedTeam(session);
    const found = await this.invitations.findInTeam(team.id, id);
    if (!found) throw new NotFoundError('Invitation not found');
    if (found.acceptedAt) {
      throw new UnprocessableValidationError('The invitation was accepted: remove the member instead');
    }
    const now = this.deps.clock.now();
    await this.invitations.revoke(team.id, id, now);
    return viewInvitation({ ...found, revokedAt: found.revokedAt ?? now }, now);
  }

  /** What the link offers, for the accept page; only a usable link answers. */
  async preview(token: string): Promise<InvitationPreview> {
    const now = this.deps.clock.now();
    const invitation = await this.usable(token, now);
    const team = await this.deps.findTeam(invitation.teamId);
    if (!team) throw unusable();
    return { invitation: viewInvitation(invitation, now), team: { id: team.id, name: team.name } };
  }

  /**
   * Accepts with the caller's session (its address must be the invitation's), or without one by
   * creating the account: the link proved the mailbox, so the address counts as verified. An
   * address that has an account must sign in first, so nobody sets a password for someone else.
   */
  async accept(input: AcceptInvitationInput, session: SessionCaller | undefined): Promise<AcceptOutcome> {
    const now = this.deps.clock.now();
    const invitation = await this.usable(input.token, now);
    if (session) {
      if (session.user.email !== invitation.email) {
        throw new InvalidPermissionError('This invitation is for another e-mail address: sign in as its addressee');
      }
      if (await this.users.isOperator(session.user.id))
        throw new InvalidPermissionError(
          "An operator account belongs to no team: accept this invitation with another address's account",
        );
      if (!(await this.join.existingUser(invitation, session.user, now))) throw unusable();
      return { kind: 'joined', session: await this.deps.sessions.switchTeam(session, invitation.teamId) };
    }
    const signInFirst = () =>
      new MissingApiKeyError('An account with this address exists: sign in (POST /auth/login), then accept');
    if (await this.users.findByEmail(invitation.email)) throw signInFirst();
    if (!input.password) {
      throw new MissingRequiredFieldError('Missing required field: password (accepting creates the account)', {
        errors: [{ path: 'password', message: 'is required to create the account' }],
      });
    }
    const password = input.password;
    const user = await this.join.newUser(invitation, { password, name: input.name }, now).catch((err) => {
      throw isUniqueViolation(err) ? signInFirst() : err;
    });
    if (!user) throw unusable();
    return { kind: 'created', issued: await this.deps.sessions.issue(user, invitation.teamId) };
  }

  /**
   * Signup under the `invite` policy: only an address with a pending invitation may sign up. The
   * account starts in no team: a signup form proves no mailbox (anyone may type an invited
   * address), so the invitation is used only once the address is verified
   * (joinAfterVerification). A taken address rejects with the unique violation, which
   * AccountService words as signup does.
   */
  async signup(input: SignupInput): Promise<IssuedSession> {
    const now = this.deps.clock.now();
    const email = input.email.trim().toLowerCase();
    if (!(await this.invitations.findPendingByEmail(email, now))) {
      throw new ForbiddenValidationError('Sign-up on this appliance is by invitation only');
    }
    const user = { id: newId(), email, name: input.name || null, emailVerifiedAt: null, createdAt: now };
    await this.users.insert({ ...user, passwordHash: await hashPassword(input.password) });
    return this.deps.sessions.issue(user);
  }

  /**
   * The address was just verified (the `invite` policy): its newest pending invitation is used,
   * the user joins that team with its role, and their sessions without a team act in it. No
   * pending invitation (revoked or expired meanwhile): the account stays without a team.
   */
  async joinAfterVerification(user: User): Promise<void> {
    const now = this.deps.clock.now();
    const invitation = await this.invitations.findPendingByEmail(user.email, now);
    if (!invitation || !(await this.join.existingUser(invitation, user, now))) return;
    await this.deps.sessions.adoptTeam(user.id, invitation.teamId);
  }

  /** Retention (with the account tokens): invitations created more than 90 days ago. */
  async purgeExpired(): Promise<number> {
    return this.invitations.deleteCreatedBefore(new Date(this.deps.clock.now().getTime() - KEEP_MS));
  }

  private async usable(token: string, now: Date): Promise<Invitation> {
    const invitation = await this.invitations.findPendingByHash(hashSecretToken(token), now);
    if (!invitation) throw unusable();
    return invitation;
  }
}

/** The session's team, when the user may manage its invitations (owner or admin). */
function managedTeam(session: SessionCaller): Team {
  if (!session.team || (session.role !== 'owner' && session.role !== 'admin')) {
    throw new InvalidPermissionError('Only an owner or admin of the current team manages its invitations');
  }
  return session.team;
}
