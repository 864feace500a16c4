import { createTable, timestamp, uuid, type Migration } from './migration.js';

/**
 * Automations: the identity of a per-contact workflow. Its graph lives in automation_versions
 * (immutable rows); `active_version_id` names the version new runs pin. It has no foreign key
 * because the automation row and its first version are written in one transaction and each
 * names the other (the version's `automation_id` carries the key).
 *
 * Deleting is soft (`deleted_at`): the automation answers 404 from then on, but runs that
 * pinned one of its versions keep a row to point at.
 */
export const createAutomations: Migration = {
  name: '20261126-0066-create-automations',
  ...createTable('automations', (table) => {
    uuid(table, 'id').primary();
    uuid(table, 'team_id').notNullable().references('id').inTable('teams').onDelete('CASCADE');
    table.string('name', 200).notNullable();
    // 'enabled' or 'disabled'.
    table.string('status', 16).notNullable();
    uuid(table, 'active_version_id').nullable();
    timestamp(table, 'created_at').notNullable();
    // Null until the first update.
    timestamp(table, 'updated_at').nullable();
    timestamp(table, 'deleted_at').nullable();
    // Lists (newest first, by id) and the engine's "enabled automations of this team".
    table.index(['team_id', 'id']);
    table.index(['team_id', 'status']);
  }),
};
