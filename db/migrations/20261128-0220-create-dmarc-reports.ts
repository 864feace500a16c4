import { timestamp, uuid, type Migration } from './migration.js';

/**
 * DMARC aggregate reports (RFC 7489 rua) received for a team's domain, and their rows. A report
 * that could not be read is kept too (status failed, with why), so none vanishes without trace.
 * A report id is stored once per domain and reporting organisation (receivers resend).
 */
export const createDmarcReports: Migration = {
  name: '20261128-0220-create-dmarc-reports',
  async up(knex) {
    if (!(await knex.schema.hasTable('dmarc_reports')))
      await knex.schema.createTable('dmarc_reports', (table) => {
        uuid(table, 'id').notNullable().primary();
        uuid(table, 'team_id').notNullable();
        uuid(table, 'domain_id').notNullable();
        table.string('status', 16).notNullable();
        table.string('error', 500).nullable();
        table.string('org_name', 255).nullable();
        table.string('email', 320).nullable();
        table.string('report_id', 255).nullable();
        timestamp(table, 'date_begin').nullable();
        timestamp(table, 'date_end').nullable();
        table.text('policy').nullable();
        table.integer('row_count').notNullable().defaultTo(0);
        table.bigInteger('message_count').notNullable().defaultTo(0);
        timestamp(table, 'received_at').notNullable();
        table.unique(['domain_id', 'org_name', 'report_id'], { indexName: 'dmarc_reports_domain_org_report_unique' });
        table.index(['domain_id', 'id'], 'dmarc_reports_domain_id_index');
        table.index(['received_at'], 'dmarc_reports_received_at_index');
      });
    if (!(await knex.schema.hasTable('dmarc_report_rows')))
      await knex.schema.createTable('dmarc_report_rows', (table) => {
        table.increments('id').primary();
        uuid(table, 'report_id').notNullable();
        uuid(table, 'domain_id').notNullable();
        // The report's begin, copied so the summary reads one table by domain and date.
        timestamp(table, 'date_begin').notNullable();
        table.string('source_ip', 45).notNullable();
        table.bigInteger('count').notNullable();
        table.string('disposition', 32).notNullable();
        table.string('dkim', 16).notNullable();
        table.string('spf', 16).notNullable();
        table.string('header_from', 255).notNullable();
        table.string('envelope_from', 255).nullable();
        table.text('auth_results').notNullable();
        table.index(['report_id'], 'dmarc_report_rows_report_index');
        table.index(['domain_id', 'date_begin'], 'dmarc_report_rows_domain_date_index');
      });
  },
  async down(knex) {
    await knex.schema.dropTableIfExists('dmarc_report_rows');
    await knex.schema.dropTableIfExists('dmarc_reports');
  },
};
