import type { Knex } from 'knex';
import { newId } from '../../lib/ids.js';
import type { Role } from './account.types.js';

export type Membership = { teamId: string; role: Role };

/**
 * Memberships are team_members rows linked to a user (user_id). A row for the user's address
 * that no user claimed yet (an owner e-mail given to `team create`) is linked, not duplicated.
 */
export class MembershipRepository {
  constructor(private readonly knex: Knex) {}

  async ofUser(userId: string): Promise<Membership[]> {
    const rows = await this.knex('team_members').where({ user_id: userId }).orderBy('created_at', 'asc');
    return rows.map((row: Record<string, unknown>) => ({ teamId: String(row.team_id), role: row.role as Role }));
  }

  async roleIn(userId: string, teamId: string): Promise<Role | null> {
    const row = await this.knex('team_members').where({ user_id: userId, team_id: teamId }).first('role');
    return (row?.role as Role | undefined) ?? null;
  }

  /** The users holding `role` in the team. */
  async userIdsWithRole(teamId: string, role: Role): Promise<string[]> {
    const rows = await this.knex('team_members')
      .where({ team_id: teamId, role })
      .whereNotNull('user_id')
      .select('user_id');
    return rows.map((row: { user_id: string }) => String(row.user_id));
  }

  /** Makes the user a member of the team with `role` (linking the address's row when there is one). */
  async link(
    member: { userId: string; teamId: string; email: string; name: string | null; role: Role; now: Date },
    trx: Knex = this.knex,
  ): Promise<void> {
    // The row shows the user's MFA use (GET /team/members), kept in step by the MFA service.
    const mfa = await trx('user_mfa').where({ user_id: member.userId }).whereNotNull('enabled_at').first('user_id');
    const existing = await trx('team_members').where({ team_id: member.teamId, email: member.email }).first('id');
    if (existing) {
      // The row `team create --owner-email` left has no name: the user's name fills it (a null
      // one never blanks a name the row has).
      await trx('team_members')
        .where({ id: existing.id })
        .update({
          user_id: member.userId,
          role: member.role,
          mfa_enabled: Boolean(mfa),
          ...(member.name !== null ? { name: member.name } : {}),
        });
      return;
    }
    await trx('team_members').insert({
      id: newId(),
      team_id: member.teamId,
      email: member.email,
      name: member.name,
      role: member.role,
      mfa_enabled: Boolean(mfa),
      created_at: member.now,
      user_id: member.userId,
    });
  }
}
