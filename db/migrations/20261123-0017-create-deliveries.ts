import { createTable, timestamp, uuid, type Migration } from './migration.js';

/**
 * The outbound queue: one delivery per recipient of an accepted email. A worker claims rows by
 * setting a lease; a row whose lease ran out (its worker died) is claimable again.
 */
export const createDeliveries: Migration = {
  name: '20261123-0017-create-deliveries',
  ...createTable('deliveries', (table) => {
    uuid(table, 'id').primary();
    uuid(table, 'email_id').notNullable();
    uuid(table, 'team_id').notNullable();
    uuid(table, 'domain_id').notNullable();
    table.string('recipient', 320).notNullable();
    table.string('recipient_domain', 255).notNullable();
    // transactional mail is claimed before bulk (broadcasts), from slots bulk cannot take.
    table.string('lane', 16).notNullable();
    // queued, deferred, sending, delivered, bounced, held
    table.string('state', 16).notNullable();
    table.integer('attempts').notNullable().defaultTo(0);
    timestamp(table, 'next_attempt_at').notNullable();
    table.string('lease_owner', 120).nullable();
    timestamp(table, 'lease_until').nullable();
    table.string('egress_ip', 64).nullable();
    table.text('last_reply').nullable();
    // email.delivery_delayed is announced once per delivery, at its first deferral.
    table.boolean('delay_notified').notNullable().defaultTo(false);
    timestamp(table, 'expires_at').notNullable();
    timestamp(table, 'created_at').notNullable();
    timestamp(table, 'updated_at').notNullable();
    table.index(['state', 'lane', 'next_attempt_at']);
    table.index(['email_id']);
    table.index(['team_id', 'state']);
    table.index(['recipient_domain', 'state']);
    table.index(['created_at']);
  }),
};
