import { createTable, timestamp, uuid, type Migration } from './migration.js';

/** Each single sign-on callback of a team and how it ended (GET /team/sso/sign-ins). */
export const createSsoSignIns: Migration = {
  name: '20261129-0313-create-sso-sign-ins',
  ...createTable('sso_sign_ins', (table) => {
    uuid(table, 'id').primary();
    uuid(table, 'team_id').notNullable();
    uuid(table, 'user_id').nullable();
    table.string('email', 320).nullable();
    table.string('name', 255).nullable();
    // signed_in | joined | tested | failed
    table.string('outcome', 16).notNullable();
    // The sso_error code of a failure.
    table.string('error', 32).nullable();
    timestamp(table, 'created_at').notNullable().index();
    table.index(['team_id', 'id']);
  }),
};
