import { timestamp, type Migration } from './migration.js';

/**
 * audit_log_entries: the team's append-only record of who did what (issue 40). Rows are never
 * updated; the retention job deletes the ones older than the plan's audit_retention_days. Ids are
 * UUIDv7, so the (team_id, id) index serves newest-first pages and time ranges alike.
 */
export const createAuditLogEntries: Migration = {
  name: '20261129-0320-create-audit-log-entries',
  async up(knex) {
    if (await knex.schema.hasTable('audit_log_entries')) return;
    await knex.schema.createTable('audit_log_entries', (table) => {
      table.uuid('id').primary();
      table.uuid('team_id').notNullable();
      table.string('action', 80).notNullable();
      table.string('actor_type', 16).notNullable();
      table.string('actor_id', 64).nullable();
      table.string('actor_name', 320).nullable();
      table.string('resource_type', 40).notNullable();
      table.string('resource_id', 255).nullable();
      table.text('metadata').notNullable();
      table.string('ip', 64).nullable();
      table.string('user_agent', 512).nullable();
      timestamp(table, 'created_at').notNullable();
      table.index(['team_id', 'id']);
      table.index(['team_id', 'action', 'id']);
      table.index(['team_id', 'resource_type', 'resource_id']);
      table.index(['created_at']);
    });
  },
  async down(knex) {
    await knex.schema.dropTableIfExists('audit_log_entries');
  },
};
