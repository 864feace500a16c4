import { createTable, timestamp, uuid, type Migration } from './migration.js';

/** A contact's own recorded choice for a topic; no row means the topic's default applies. */
export const createContactTopics: Migration = {
  name: '20261126-0051-create-contact-topics',
  ...createTable('contact_topics', (table) => {
    uuid(table, 'contact_id').notNullable().references('id').inTable('contacts').onDelete('CASCADE');
    uuid(table, 'topic_id').notNullable().references('id').inTable('topics').onDelete('CASCADE');
    uuid(table, 'team_id').notNullable();
    table.string('subscription', 10).notNullable();
    timestamp(table, 'updated_at').notNullable();
    table.primary(['contact_id', 'topic_id']);
    table.index(['topic_id', 'subscription']);
  }),
};
