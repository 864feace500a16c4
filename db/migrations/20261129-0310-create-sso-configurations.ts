import { createTable, timestamp, uuid, type Migration } from './migration.js';

/**
 * A team's OpenID Connect single sign-on (one per team). The client secret is stored sealed
 * under the master key (lib/crypto/secret-box.ts) and never leaves the service. The status is
 * read from the stamps (see core/sso/sso.types.ts): tested_at, active, last_error.
 */
export const createSsoConfigurations: Migration = {
  name: '20261129-0310-create-sso-configurations',
  ...createTable('sso_configurations', (table) => {
    uuid(table, 'id').primary();
    uuid(table, 'team_id').notNullable().unique();
    table.string('issuer', 2048).notNullable();
    table.string('client_id', 255).notNullable();
    table.text('client_secret_sealed').notNullable();
    table.boolean('active').notNullable().defaultTo(false);
    table.boolean('enforced').notNullable().defaultTo(false);
    timestamp(table, 'tested_at').nullable();
    timestamp(table, 'activated_at').nullable();
    table.string('last_error', 500).nullable();
    timestamp(table, 'last_error_at').nullable();
    timestamp(table, 'last_sign_in_at').nullable();
    timestamp(table, 'created_at').notNullable();
    timestamp(table, 'updated_at').notNullable();
  }),
};
