import type { Knex } from 'knex';
import { readNullableTimestamp, readTimestamp } from '../../db/dialect.js';
import type { Invitation, InvitationRole } from './invitation.types.js';

type InvitationRow = {
  id: string;
  team_id: string;
  email: string;
  role: string;
  invited_by_user_id: string;
  created_at: unknown;
  expires_at: unknown;
  accepted_at: unknown;
  accepted_by_user_id: string | null;
  revoked_at: unknown;
};

const toInvitation = (row: InvitationRow): Invitation => ({
  id: row.id,
  teamId: row.team_id,
  email: row.email,
  role: row.role as InvitationRole,
  invitedByUserId: row.invited_by_user_id,
  createdAt: readTimestamp(row.created_at),
  expiresAt: readTimestamp(row.expires_at),
  acceptedAt: readNullableTimestamp(row.accepted_at),
  acceptedByUserId: row.accepted_by_user_id,
  revokedAt: readNullableTimestamp(row.revoked_at),
});

/** Neither accepted nor revoked, and not expired at `now`. */
const pending = (query: Knex.QueryBuilder, now: Date) =>
  query.whereNull('accepted_at').whereNull('revoked_at').where('expires_at', '>', now);

/** The team_invitations table; a token is looked up by its SHA-256 only. */
export class InvitationRepository {
  constructor(private readonly knex: Knex) {}

  async insert(invitation: Invitation & { tokenHash: string }, trx: Knex = this.knex): Promise<void> {
    await trx('team_invitations').insert({
      id: invitation.id,
      team_id: invitation.teamId,
      email: invitation.email,
      role: invitation.role,
      token_hash: invitation.tokenHash,
      invited_by_user_id: invitation.invitedByUserId,
      created_at: invitation.createdAt,
      expires_at: invitation.expiresAt,
    });
  }

  async findInTeam(teamId: string, id: string): Promise<Invitation | undefined> {
    const row = (await this.knex('team_invitations').where({ team_id: teamId, id }).first()) as
      InvitationRow | undefined;
    return row ? toInvitation(row) : undefined;
  }

  /** The team's invitations created since `since`, newest first (pending ones are all younger). */
  async listForTeam(teamId: string, since: Date, limit: number): Promise<Invitation[]> {
    const rows = (await this.knex('team_invitations')
      .where({ team_id: teamId })
      .where('created_at', '>=', since)
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(limit)) as InvitationRow[];
    return rows.map(toInvitation);
  }

  /** The pending invitation of a token, or undefined (unknown, expired, accepted or revoked). */
  async findPendingByHash(tokenHash: string, now: Date, trx: Knex = this.knex): Promise<Invitation | undefined> {
    const row = (await pending(trx('team_invitations').where({ token_hash: tokenHash }), now).first()) as
      InvitationRow | undefined;
    return row ? toInvitation(row) : undefined;
  }

  /** The newest pending invitation of an address, in any team (signup under the `invite` policy). */
  async findPendingByEmail(email: string, now: Date, trx: Knex = this.knex): Promise<Invitation | undefined> {
    const row = (await pending(trx('team_invitations').where({ email }), now).orderBy('created_at', 'desc').first()) as
      InvitationRow | undefined;
    return row ? toInvitation(row) : undefined;
  }

  /** The newest pending invitation of an address into one team (a single sign-on's just-in-time join). */
  async findPendingInTeam(
    teamId: string,
    email: string,
    now: Date,
    trx: Knex = this.knex,
  ): Promise<Invitation | undefined> {
    const row = (await pending(trx('team_invitations').where({ team_id: teamId, email }), now)
      .orderBy('created_at', 'desc')
      .first()) as InvitationRow | undefined;
    return row ? toInvitation(row) : undefined;
  }

  /** Revokes the address's pending invitations in the team (a new one supersedes them). */
  async revokePendingFor(teamId: string, email: string, now: Date, trx: Knex): Promise<void> {
    await pending(trx('team_invitations').where({ team_id: teamId, email }), now).update({ revoked_at: now });
  }

  /** Revokes one invitation unless it was accepted or revoked already (the first stamp stays). */
  async revoke(teamId: string, id: string, now: Date): Promise<void> {
    await this.knex('team_invitations')
      .where({ team_id: teamId, id })
      .whereNull('accepted_at')
      .whereNull('revoked_at')
      .update({ revoked_at: now });
  }

  /**
   * Accepts a pending invitation for `userId`. The conditional UPDATE makes the token single-use
   * when two requests race with it: only one of them changes the row.
   */
  async consume(id: string, userId: string, now: Date, trx: Knex): Promise<boolean> {
    const updated = await pending(trx('team_invitations').where({ id }), now).update({
      accepted_at: now,
      accepted_by_user_id: userId,
    });
    return updated === 1;
  }

  /**
   * Whether the address already belongs to the team (a team_members row, claimed by a user or
   * not): inviting it again would change nothing but its role, which is not what an invite is for.
   */
  async isMember(teamId: string, email: string): Promise<boolean> {
    return Boolean(await this.knex('team_members').where({ team_id: teamId, email }).first('id'));
  }

  /** Retention: invitations created before `before` (by then long expired, accepted or revoked). */
  async deleteCreatedBefore(before: Date): Promise<number> {
    return this.knex('team_invitations').where('created_at', '<', before).delete();
  }
}
