import { createTable, timestamp, uuid, type Migration } from './migration.js';

/**
 * Invitations into a team, by address. The token is a bearer secret sent by mail: only its
 * SHA-256 is stored. A row is never reused: accepting, revoking or superseding it stamps it, and
 * the status (pending, accepted, revoked, expired) is read from the stamps and expires_at.
 */
export const createTeamInvitations: Migration = {
  name: '20261126-0084-create-team-invitations',
  ...createTable('team_invitations', (table) => {
    uuid(table, 'id').primary();
    uuid(table, 'team_id').notNullable().references('id').inTable('teams').onDelete('CASCADE');
    // Lower-cased, like users.email, so comparisons agree on both databases.
    table.string('email', 320).notNullable();
    table.string('role', 16).notNullable();
    table.string('token_hash', 64).notNullable().unique('team_invitations_token_hash_unique');
    // Not foreign keys: an invitation outlives the user who sent it (the audit trail stays).
    uuid(table, 'invited_by_user_id').notNullable();
    timestamp(table, 'created_at').notNullable();
    timestamp(table, 'expires_at').notNullable();
    timestamp(table, 'accepted_at').nullable();
    uuid(table, 'accepted_by_user_id').nullable();
    timestamp(table, 'revoked_at').nullable();
    table.index(['team_id', 'created_at'], 'team_invitations_team_created');
    // Superseding by address, and signup under the `invite` policy.
    table.index(['email', 'team_id'], 'team_invitations_email_team');
  }),
};
