import { createTable, timestamp, uuid, type Migration } from './migration.js';

/**
 * A user's TOTP second factor: the secret sealed with the master key (it must be read back to
 * check codes, unlike passwords), `enabled_at` null while enrolling, the last time step used
 * (a code works once), and the SHA-256 of each unused recovery code (JSON array).
 */
export const createUserMfa: Migration = {
  name: '20261126-0079-create-user-mfa',
  ...createTable('user_mfa', (table) => {
    uuid(table, 'user_id').primary().references('id').inTable('users').onDelete('CASCADE');
    table.text('secret_sealed').notNullable();
    timestamp(table, 'enabled_at').nullable();
    table.bigInteger('last_used_step').nullable();
    table.text('recovery_codes').nullable();
    timestamp(table, 'created_at').notNullable();
  }),
};
