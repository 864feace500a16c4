import { createTable, timestamp, uuid, type Migration } from './migration.js';

export const createRequestLogs: Migration = {
  name: '20261122-0004-create-request-logs',
  ...createTable('request_logs', (table) => {
    uuid(table, 'id').primary();
    uuid(table, 'team_id').notNullable();
    uuid(table, 'api_key_id').nullable();
    timestamp(table, 'created_at').notNullable();
    table.string('endpoint', 2048).notNullable();
    table.string('method', 10).notNullable();
    table.integer('response_status').notNullable();
    table.string('user_agent', 512).nullable();
    table.string('source', 64).notNullable();
    uuid(table, 'request_id').notNullable();
    table.integer('latency_ms').notNullable();
    table.text('request_body', 'mediumtext').nullable();
    table.text('response_body', 'mediumtext').nullable();
    uuid(table, 'email_id').nullable();
    table.index(['team_id', 'id']);
    table.index(['api_key_id', 'id']);
    table.index(['created_at']);
  }),
};
