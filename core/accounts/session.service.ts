import type { Knex } from 'knex';
import type { Clock } from '../../lib/clock.js';
import { NotFoundError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import type { Team } from '../platform/teams/team.types.js';
import {
  SESSION_ABSOLUTE_MS,
  SESSION_IDLE_MS,
  type IssuedSession,
  type Role,
  type SessionCaller,
  type User,
} from './account.types.js';
import { MembershipRepository } from './membership.repository.js';
import { SessionRepository, type SessionRow } from './session.repository.js';
import { hashSecretToken, newSecretToken } from './secret-token.js';
import { UserRepository } from './user.repository.js';

export type SessionServiceDeps = {
  knex: Knex;
  clock: Clock;
  /** A team by id, or undefined when it is gone. */
  findTeam: (teamId: string) => Promise<Team | undefined>;
};

/** last_seen_at is written at most this often: a busy dashboard does not write on every request. */
const TOUCH_EVERY_MS = 60_000;

/**
 * Dashboard sessions: 30 days at most from login, ended sooner by 7 idle days, a logout or a
 * password reset. The cookie carries a random token; the table holds its SHA-256.
 */
export class SessionService {
  private readonly sessions: SessionRepository;
  private readonly users: UserRepository;
  private readonly memberships: MembershipRepository;

  constructor(private readonly deps: SessionServiceDeps) {
    this.sessions = new SessionRepository(deps.knex);
    this.users = new UserRepository(deps.knex);
    this.memberships = new MembershipRepository(deps.knex);
  }

  /**
   * A new session for `user` (every login gets a new token: no fixation), acting in `teamId` or
   * else in the user's first team.
   */
  async issue(user: User, teamId?: string, options: { viaSso?: boolean } = {}): Promise<IssuedSession> {
    const now = this.deps.clock.now();
    const { token, hash } = newSecretToken();
    const currentTeamId = teamId ?? (await this.memberships.ofUser(user.id))[0]?.teamId ?? null;
    const row: SessionRow = {
      id: newId(),
      userId: user.id,
      currentTeamId,
      lastSeenAt: now,
      expiresAt: new Date(now.getTime() + SESSION_ABSOLUTE_MS),
      viaSso: options.viaSso ?? false,
    };
    await this.sessions.insert({ ...row, tokenHash: hash, createdAt: now });
    return { token, expiresAt: row.expiresAt, session: await this.describe(row, user) };
  }

  /** The live session of a cookie token, or undefined (unknown, revoked, expired or idle). */
  async resolve(token: string): Promise<SessionCaller | undefined> {
    const now = this.deps.clock.now();
    const row = await this.sessions.findLive(hashSecretToken(token), now, new Date(now.getTime() - SESSION_IDLE_MS));
    if (!row) return undefined;
    const user = await this.users.findById(row.userId);
    if (!user) return undefined;
    if (now.getTime() - row.lastSeenAt.getTime() >= TOUCH_EVERY_MS) await this.sessions.touch(row.id, now);
    return this.describe(row, user);
  }

  /**
   * Moves the session to another team of the user. A team the user is not a member of answers
   * like a missing one (404): membership of other teams is not disclosed.
   */
  async switchTeam(session: SessionCaller, teamId: string): Promise<SessionCaller> {
    const role = await this.memberships.roleIn(session.user.id, teamId.toLowerCase());
    const team = role ? await this.deps.findTeam(teamId.toLowerCase()) : undefined;
    if (!role || !team) throw new NotFoundError('Team not found');
    await this.sessions.setCurrentTeam(session.sessionId, team.id);
    return { ...session, team, role };
  }

  /**
   * A new token for the same person and team, the old one revoked: after a privilege change (MFA
   * turned on or off, another team and role) a token that leaked before it is worth nothing.
   */
  async rotate(session: SessionCaller): Promise<IssuedSession> {
    const issued = await this.issue(session.user, session.team?.id, { viaSso: session.viaSso });
    await this.revoke(session.sessionId);
    return issued;
  }

  /** Every team the user belongs to, with their role there (the dashboard's team switcher). */
  async teamsOf(userId: string): Promise<{ team: Team; role: Role }[]> {
    const memberships = await this.memberships.ofUser(userId);
    const found = await Promise.all(
      memberships.map(async ({ teamId, role }) => ({ team: await this.deps.findTeam(teamId), role })),
    );
    return found.flatMap(({ team, role }) => (team ? [{ team, role }] : []));
  }

  /** The user's sessions without a team (signed up, then joined by invitation) act in `teamId`. */
  async adoptTeam(userId: string, teamId: string): Promise<void> {
    await this.sessions.adoptTeam(userId, teamId);
  }

  async revoke(sessionId: string): Promise<void> {
    await this.sessions.revoke(sessionId, this.deps.clock.now());
  }

  async revokeAll(userId: string, trx?: Knex): Promise<void> {
    await this.sessions.revokeAllOfUser(userId, this.deps.clock.now(), trx);
  }

  /** Ends the sessions of these users not opened through single sign-on; how many ended. */
  async revokeNotViaSso(userIds: readonly string[]): Promise<number> {
    return this.sessions.revokeNotViaSso(userIds, this.deps.clock.now());
  }

  /** Retention: removes sessions that ended (expired or revoked) more than a day ago. */
  async purgeEnded(): Promise<number> {
    return this.sessions.deleteEndedBefore(new Date(this.deps.clock.now().getTime() - 86_400_000));
  }

  /** The session with its team and the user's role there; a team the user left reads as none. */
  private async describe(row: SessionRow, user: User): Promise<SessionCaller> {
    const base = { sessionId: row.id, expiresAt: row.expiresAt, user, viaSso: row.viaSso };
    const role = row.currentTeamId ? await this.memberships.roleIn(user.id, row.currentTeamId) : null;
    const team = role ? await this.deps.findTeam(row.currentTeamId!) : undefined;
    return team && role ? { ...base, team, role } : { ...base, team: null, role: null };
  }
}
