import { createTable, timestamp, uuid, type Migration } from './migration.js';

/**
 * Diagnoses the AI helper made (POST /emails/{id}/diagnose), one per email and state of that
 * email (a hash of its events, deliveries and suppressions): the same state asked again is
 * answered from here (`stored: true`) at no cost. Only the model's answer is kept, never what it
 * was shown. Purged with the team's plan retention (purge-ai-diagnoses).
 */
export const createAiDiagnoses: Migration = {
  name: '20261128-0100-create-ai-diagnoses',
  ...createTable('ai_diagnoses', (table) => {
    uuid(table, 'id').primary();
    uuid(table, 'team_id').notNullable();
    uuid(table, 'email_id').notNullable();
    /** sha256 (hex) of the email's state the diagnosis was made from. */
    table.string('state_hash', 64).notNullable();
    table.text('summary').notNullable();
    /** JSON string lists. */
    table.text('likely_causes', 'mediumtext').notNullable();
    table.text('next_steps', 'mediumtext').notNullable();
    /** null, or provider_failure (made without the model). */
    table.string('cause', 32).nullable();
    timestamp(table, 'created_at').notNullable();
    table.unique(['email_id', 'state_hash'], { indexName: 'ai_diagnoses_email_state' });
    table.index(['created_at'], 'ai_diagnoses_created_at');
  }),
};
