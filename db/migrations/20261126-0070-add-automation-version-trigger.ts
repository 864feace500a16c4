import type { Knex } from 'knex';
import type { Migration } from './migration.js';

type VersionRow = { id: string; steps: unknown };

/**
 * What a version's trigger listens to, in columns the engine can query: `trigger_event` (a
 * custom event name or svc:...), `trigger_definition_id` (the custom event definition live when
 * the version was published: a definition deleted and created again under the same name is
 * another one, and the version never fires for it) and `trigger_subject_id` (the segment of
 * svc:segment.entered, the topic of svc:topic.subscribed, when the trigger names one).
 * Versions written before this have their event filled from their steps and no definition id
 * (they keep matching by name).
 */
export const addAutomationVersionTrigger: Migration = {
  name: '20261126-0070-add-automation-version-trigger',
  async up(knex) {
    if (await knex.schema.hasColumn('automation_versions', 'trigger_event')) return;
    await knex.schema.alterTable('automation_versions', (table) => {
      table.string('trigger_event', 120).nullable();
      table.string('trigger_definition_id', 36).nullable();
      table.string('trigger_subject_id', 36).nullable();
    });
    await backfill(knex);
  },
  async down(knex) {
    if (!(await knex.schema.hasColumn('automation_versions', 'trigger_event'))) return;
    await knex.schema.alterTable('automation_versions', (table) => {
      table.dropColumns('trigger_event', 'trigger_definition_id', 'trigger_subject_id');
    });
  },
};

async function backfill(knex: Knex): Promise<void> {
  const rows = (await knex('automation_versions').select('id', 'steps')) as VersionRow[];
  for (const row of rows) {
    const steps = JSON.parse(String(row.steps)) as Array<{ type: string; config: Record<string, unknown> }>;
    const config = steps.find((s) => s.type === 'trigger')?.config ?? {};
    await knex('automation_versions')
      .where({ id: row.id })
      .update({
        trigger_event: typeof config.event_name === 'string' ? config.event_name : null,
        trigger_subject_id:
          typeof config.segment_id === 'string'
            ? config.segment_id
            : typeof config.topic_id === 'string'
              ? config.topic_id
              : null,
      });
  }
}
