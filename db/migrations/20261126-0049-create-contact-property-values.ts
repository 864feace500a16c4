import { createTable, uuid, type Migration } from './migration.js';

/**
 * One row per (contact, property) with a value, typed columns instead of a JSON blob: a
 * segment filter on `properties.<key>` becomes an indexed EXISTS in both dialects.
 */
export const createContactPropertyValues: Migration = {
  name: '20261126-0049-create-contact-property-values',
  ...createTable('contact_property_values', (table) => {
    uuid(table, 'contact_id').notNullable().references('id').inTable('contacts').onDelete('CASCADE');
    uuid(table, 'property_id').notNullable().references('id').inTable('contact_properties').onDelete('CASCADE');
    uuid(table, 'team_id').notNullable();
    table.string('string_value', 500).nullable();
    table.double('number_value').nullable();
    table.primary(['contact_id', 'property_id']);
    table.index(['property_id', 'number_value']);
    table.index(['property_id', 'string_value']);
  }),
};
