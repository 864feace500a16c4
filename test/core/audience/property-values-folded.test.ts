import t from 'tap';
import { foldPropertyString, propertyValueRow } from '../../../core/audience/contacts/property-value-row.js';
import { foldMissedPropertyValues } from '../../../core/audience/contacts/folded-value-catch-up.js';
import { migrateLatest } from '../../../db/migrate.js';
import { foldPropertyValuesJob } from '../../../scheduler/jobs/fold-property-values.job.js';
import { backfillFolded } from '../../../db/migrations/20261128-0301-backfill-property-values-folded.js';
import { connectTestDatabase } from '../../helpers/test-database.js';

const { db, close } = await connectTestDatabase();
t.teardown(close);
await migrateLatest(db.knex);
const { knex } = db;

t.test('the fold: lower case, one character for one, the same for stored and filter values', async (t) => {
  t.equal(foldPropertyString('Pro PLUS'), 'pro plus');
  t.equal(foldPropertyString('ÉCOLE'), 'école');
  t.equal(foldPropertyString('Straße'), 'straße', 'ß stays (no expansion to ss)');
  t.equal(foldPropertyString('İzmir'), 'izmir', 'İ folds to a plain i, not i + combining dot');
  t.equal(foldPropertyString('ΟΔΟΣ'), 'οδοσ', 'a final capital sigma folds to σ');
  t.equal(foldPropertyString('οδος'), 'οδοσ', 'and so does the final small sigma');
  const long = 'İ'.repeat(500);
  t.equal(foldPropertyString(long).length, 500, 'a 500-character value still fits the column');
  t.same(propertyValueRow({ contactId: 'c', propertyId: 'p', teamId: 't', type: 'string', value: 'ÉCOLE' }), {
    contact_id: 'c',
    property_id: 'p',
    team_id: 't',
    string_value: 'ÉCOLE',
    folded_value: 'école',
    number_value: null,
  });
  t.equal(
    propertyValueRow({ contactId: 'c', propertyId: 'p', teamId: 't', type: 'number', value: 3 }).folded_value,
    null,
  );
});

t.test('the backfill folds rows written before the column, in batches, and resumes', async (t) => {
  const now = new Date();
  await knex('teams').insert({ id: 'team-f', name: 'F', slug: 'f', created_at: now, updated_at: now });
  await knex('contact_properties').insert(
    ['city', 'size'].map((key) => ({
      id: `p-${key}`,
      team_id: 'team-f',
      key,
      key_normalized: key,
      type: key === 'size' ? 'number' : 'string',
      created_at: now,
    })),
  );
  const cities = ['Paris', 'ÉCOLE', 'İzmir', 'ΟΔΟΣ', 'plain', 'MiXeD', 'Straße'];
  const contacts = Array.from({ length: 23 }, (_, i) => `c-${String(i).padStart(3, '0')}`);
  await knex('contacts').insert(
    contacts.map((id) => ({
      id,
      team_id: 'team-f',
      email: `${id}@x.test`,
      email_normalized: `${id}@x.test`,
      unsubscribed: false,
      created_at: now,
      updated_at: now,
    })),
  );
  // As rows were before 20261128-0300: no folded_value.
  await knex('contact_property_values').insert(
    contacts.flatMap((id, i) => [
      { contact_id: id, property_id: 'p-city', team_id: 'team-f', string_value: cities[i % cities.length] },
      { contact_id: id, property_id: 'p-size', team_id: 'team-f', number_value: i },
    ]),
  );
  const batches: number[] = [];
  const folded = await backfillFolded(knex, { rowsPerBatch: 4, onBatch: ({ folded }) => batches.push(folded) });
  t.equal(folded, 23, 'every string value folded');
  t.ok(batches.length >= 12, `in batches (${batches.length})`);
  const rows = (await knex('contact_property_values').select('property_id', 'string_value', 'folded_value')) as Array<{
    property_id: string;
    string_value: string | null;
    folded_value: string | null;
  }>;
  for (const row of rows)
    t.equal(
      row.folded_value,
      row.string_value === null ? null : foldPropertyString(row.string_value),
      `${row.property_id} ${row.string_value}`,
    );
  t.equal(await backfillFolded(knex, { rowsPerBatch: 4 }), 0, 'a second run has nothing left to do');
  // A run cut short: some rows still unfolded are finished by the next run.
  await knex('contact_property_values').whereIn('contact_id', contacts.slice(10)).update({ folded_value: null });
  t.equal(await backfillFolded(knex), 13, 'the next run folds what was left');
});

t.test('the fold-property-values job folds rows a previous release wrote without the fold', async (t) => {
  // Continues the team and rows of the backfill test: a previous release writes two rows with no fold.
  await knex('contact_property_values')
    .whereIn('contact_id', ['c-001', 'c-002'])
    .where({ property_id: 'p-city' })
    .update({ string_value: 'ÉCOLE Nouvelle', folded_value: null });
  t.same(await foldMissedPropertyValues(knex), { folded: 2 });
  const rows = (await knex('contact_property_values')
    .whereIn('contact_id', ['c-001', 'c-002'])
    .where({ property_id: 'p-city' })
    .select('folded_value')) as Array<{ folded_value: string }>;
  t.same(
    rows.map((row) => row.folded_value),
    ['école nouvelle', 'école nouvelle'],
  );
  t.same(await foldMissedPropertyValues(knex), { folded: 0 }, 'nothing left: number values are never folded');
  t.same(
    await foldPropertyValuesJob.run({ foldMissedPropertyValues: () => foldMissedPropertyValues(knex) } as never),
    { folded: 0 },
    'the job runs the same catch-up',
  );
});
