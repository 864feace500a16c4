import { createTable, timestamp, uuid, type Migration } from './migration.js';

/**
 * Dashboard users. `email` is stored lower-cased, so the unique index makes addresses unique
 * case-insensitively on both databases (MySQL collations and SQLite differ on case otherwise).
 * `password_hash` is null for a user created by the operator without a password.
 */
export const createUsers: Migration = {
  name: '20261126-0075-create-users',
  ...createTable('users', (table) => {
    uuid(table, 'id').primary();
    table.string('email', 320).notNullable().unique('users_email_unique');
    table.string('name', 200).nullable();
    table.string('password_hash', 255).nullable();
    timestamp(table, 'email_verified_at').nullable();
    timestamp(table, 'created_at').notNullable();
    timestamp(table, 'updated_at').notNullable();
  }),
};
