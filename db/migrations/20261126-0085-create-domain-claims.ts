import { createTable, timestamp, uuid, type Migration } from './migration.js';

/**
 * Claims on a domain name another team has verified. A row is never reused: a new attempt is a
 * new row, so GET /domains/{id}/claim shows the latest and the history stays for support.
 */
export const createDomainClaims: Migration = {
  name: '20261126-0085-create-domain-claims',
  ...createTable('domain_claims', (table) => {
    uuid(table, 'id').primary();
    uuid(table, 'team_id').notNullable().references('id').inTable('teams').onDelete('CASCADE');
    // The claimer's placeholder domain. Not a foreign key: deleting the placeholder cancels the
    // claim (in the same transaction) and the canceled row stays readable in the history.
    uuid(table, 'domain_id').nullable();
    table.string('name', 253).notNullable();
    table.string('region', 20).notNullable();
    table.string('status', 16).notNullable();
    table.string('blocked_reason', 32).nullable();
    table.string('failure_reason', 500).nullable();
    // The TXT value that proves control of the name; random, never reused across claims.
    table.string('token', 100).notNullable();
    timestamp(table, 'created_at').notNullable();
    timestamp(table, 'updated_at').notNullable();
    timestamp(table, 'expires_at').notNullable();
    timestamp(table, 'verify_requested_at').nullable();
    timestamp(table, 'verified_at').nullable();
    timestamp(table, 'completed_at').nullable();
    // Null until POST .../claim/verify asks for a check; the scheduler picks rows due by it.
    timestamp(table, 'next_check_at').nullable();
    table.integer('check_attempts').notNullable().defaultTo(0);
    table.index(['name', 'status'], 'domain_claims_name_status');
    table.index(['domain_id', 'created_at'], 'domain_claims_domain_created');
    table.index(['next_check_at'], 'domain_claims_next_check');
    table.index(['status', 'expires_at'], 'domain_claims_status_expires');
  }),
};
