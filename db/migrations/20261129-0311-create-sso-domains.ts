import { createTable, timestamp, uuid, type Migration } from './migration.js';

/**
 * The e-mail domains a team's single sign-on covers. The domain is the key: one team per
 * domain, enforced by the database, and the sign-in page finds the team from an address.
 */
export const createSsoDomains: Migration = {
  name: '20261129-0311-create-sso-domains',
  ...createTable('sso_domains', (table) => {
    // Lower-cased; 253 is the longest DNS name.
    table.string('domain', 253).primary();
    uuid(table, 'team_id').notNullable().index();
    timestamp(table, 'created_at').notNullable();
  }),
};
