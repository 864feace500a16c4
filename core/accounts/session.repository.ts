import type { Knex } from 'knex';
import { readTimestamp } from '../../db/dialect.js';

export type SessionRow = {
  id: string;
  userId: string;
  currentTeamId: string | null;
  lastSeenAt: Date;
  expiresAt: Date;
  /** Opened through a team's identity provider (enforcing single sign-on ends the others). */
  viaSso: boolean;
};

/** The user_sessions table: rows are found by the SHA-256 of the cookie's token. */
export class SessionRepository {
  constructor(private readonly knex: Knex) {}

  async insert(row: SessionRow & { tokenHash: string; createdAt: Date }, trx: Knex = this.knex): Promise<void> {
    await trx('user_sessions').insert({
      id: row.id,
      user_id: row.userId,
      token_hash: row.tokenHash,
      current_team_id: row.currentTeamId,
      created_at: row.createdAt,
      last_seen_at: row.lastSeenAt,
      expires_at: row.expiresAt,
      via_sso: row.viaSso,
    });
  }

  /** The unrevoked session of a token hash that neither expired nor sat idle since `idleSince`. */
  async findLive(tokenHash: string, now: Date, idleSince: Date): Promise<SessionRow | undefined> {
    const row = await this.knex('user_sessions')
      .where({ token_hash: tokenHash })
      .whereNull('revoked_at')
      .where('expires_at', '>', now)
      .where('last_seen_at', '>', idleSince)
      .first();
    if (!row) return undefined;
    return {
      id: String(row.id),
      userId: String(row.user_id),
      currentTeamId: (row.current_team_id as string | null) ?? null,
      lastSeenAt: readTimestamp(row.last_seen_at),
      expiresAt: readTimestamp(row.expires_at),
      viaSso: Boolean(row.via_sso),
    };
  }

  async touch(id: string, now: Date): Promise<void> {
    await this.knex('user_sessions').where({ id }).update({ last_seen_at: now });
  }

  async setCurrentTeam(id: string, teamId: string | null): Promise<void> {
    await this.knex('user_sessions').where({ id }).update({ current_team_id: teamId });
  }

  /** Live sessions of the user that act in no team yet now act in `teamId`. */
  async adoptTeam(userId: string, teamId: string): Promise<void> {
    await this.knex('user_sessions')
      .where({ user_id: userId })
      .whereNull('current_team_id')
      .whereNull('revoked_at')
      .update({ current_team_id: teamId });
  }

  async revoke(id: string, now: Date): Promise<void> {
    await this.knex('user_sessions').where({ id }).whereNull('revoked_at').update({ revoked_at: now });
  }

  async revokeAllOfUser(userId: string, now: Date, trx: Knex = this.knex): Promise<number> {
    return trx('user_sessions').where({ user_id: userId }).whereNull('revoked_at').update({ revoked_at: now });
  }

  /** Ends the live sessions of these users that were not opened through single sign-on. */
  async revokeNotViaSso(userIds: readonly string[], now: Date): Promise<number> {
    let ended = 0;
    for (let i = 0; i < userIds.length; i += 500)
      ended += await this.knex('user_sessions')
        .whereIn('user_id', userIds.slice(i, i + 500))
        .whereNull('revoked_at')
        .where({ via_sso: false })
        .update({ revoked_at: now });
    return ended;
  }

  /** Retention: sessions past their absolute expiry, or revoked, before `before`. */
  async deleteEndedBefore(before: Date): Promise<number> {
    return this.knex('user_sessions').where('expires_at', '<', before).orWhere('revoked_at', '<', before).delete();
  }
}
