import { BATCH_RECORDS } from '../../../core/audience/imports/contact-import.runner.js';
import type { ChildProcess } from 'node:child_process';
import t, { type Test } from 'tap';
import { request } from '../../helpers/http.js';
import { generatedCsv, importWorker, runImports, uploadImport } from '../../helpers/contact-imports.js';
import { commandEnv } from '../../helpers/process-env.js';
import { logUrl, spawnMailroom, stopChild } from '../../helpers/spawn-mailroom.js';
import { startTestApp } from '../../helpers/test-app.js';

/**
 * An import interrupted between batches or inside one continues after its last committed batch
 * and never writes a row twice: stopped in process (a shutdown), and `mailroom scheduler`
 * processes killed with SIGKILL (MAILROOM_CRASH_POINT) right after a batch committed and inside
 * a batch before its commit, then a real scheduler taking over at once.
 */
const app = await startTestApp();
const children: ChildProcess[] = [];
t.teardown(async () => {
  await Promise.all(children.map((child) => stopChild(child, 'SIGKILL')));
  await app.close();
});
const knex = app.runtime.db.knex;
const BATCH = BATCH_RECORDS;
const ROWS = BATCH * 2 + BATCH / 2; // three batches

const team = await app.createTeam('Resume', 'unlimited');
const call = (method: string, path: string, body?: unknown) =>
  request(app.url, path, { method, token: team.token, body });
await call('POST', '/contact-properties', { key: 'seats', type: 'number' });
const topic = (await call('POST', '/topics', { name: 'News', default_subscription: 'opt_out' })).body.id;
const segment = (await call('POST', '/segments', { name: 'All', filter: null })).body.id;
const fields = {
  topics: JSON.stringify([{ id: topic, subscription: 'opt_in' }]),
  segments: JSON.stringify([{ id: segment }]),
};

const importRow = (id: string) => knex('contact_imports').where({ id }).first();
const count = async (table: string, where: Record<string, unknown> = {}) =>
  Number(
    (
      (await knex(table)
        .where({ team_id: team.teamId, ...where })
        .count({ n: '*' })
        .first()) as { n: unknown }
    ).n,
  );

/** Everything the import writes exists once per contact. */
async function assertWrittenOnce(t: Test, prefix: string) {
  const contacts = await knex('contacts')
    .where({ team_id: team.teamId })
    .where('email', 'like', `${prefix}%`)
    .select('id');
  t.equal(contacts.length, ROWS, 'every row made one contact');
  const ids = contacts.map((c) => c.id as string);
  const perContact = async (table: string) => {
    let n = 0;
    for (let i = 0; i < ids.length; i += 500)
      n += Number(
        (
          (await knex(table)
            .whereIn('contact_id', ids.slice(i, i + 500))
            .count({ n: '*' })
            .first()) as { n: unknown }
        ).n,
      );
    return n;
  };
  t.equal(await perContact('contact_property_values'), ROWS, 'one value each');
  t.equal(await perContact('contact_topics'), ROWS, 'one topic choice each');
  t.equal(await perContact('segment_members'), ROWS, 'one membership each');
  t.equal(await perContact('consent_records'), ROWS, 'one consent record each');
}

t.test('stopped after a batch (a shutdown): the import is given back and the next run finishes it', async (t) => {
  const { id } = (await uploadImport(app, team.token, generatedCsv(ROWS, 'stop'), fields)).body;
  const stopping = new AbortController();
  stopping.abort();
  const worker = await importWorker(app.runtime, stopping.signal);
  const stopped = await app.runtime.services.contactImportRunner.runNext(worker);
  t.match(stopped, {
    id,
    status: 'in_progress',
    rowsDone: BATCH,
    counts: { total: BATCH, created: BATCH },
    leaseOwner: null,
  });
  await runImports(app.runtime);
  t.match(await importRow(id), { status: 'completed', rows_done: ROWS, total: ROWS, created: ROWS, failed: 0 });
  await assertWrittenOnce(t, 'stop');
});

t.test(
  'killed after a commit and inside a batch: a scheduler takes over at once and writes no row twice',
  async (t) => {
    const { id } = (await uploadImport(app, team.token, generatedCsv(ROWS, 'kill'), fields)).body;
    const env = {
      ...commandEnv({
        url: app.runtime.config.database.url,
        dataDir: app.runtime.config.dataDir,
        drop: async () => {},
      }),
      MAILROOM_ENV: 'test',
    };
    const killedAt = async (point: string) => {
      const { child, ready } = spawnMailroom('scheduler', { ...env, MAILROOM_CRASH_POINT: point }, 'never');
      ready.catch(() => undefined);
      children.push(child);
      const signal = await new Promise((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
      t.equal(signal, 'SIGKILL', `the scheduler died at ${point}`);
    };

    await killedAt('contact-import.after-batch');
    t.match(
      await importRow(id),
      { status: 'in_progress', rows_done: BATCH, created: BATCH },
      'the first batch committed',
    );
    await killedAt('contact-import.before-commit');
    t.match(
      await importRow(id),
      { rows_done: BATCH, created: BATCH },
      'the batch killed before its commit left nothing',
    );
    t.equal(await count('contacts'), BATCH + ROWS, 'only the committed batch of this import (and the first import)');

    const { child, ready } = spawnMailroom('scheduler', env, 'never');
    ready.catch(() => undefined);
    children.push(child);
    const finished = logUrl(child, 'contact import finished');
    const started = performance.now();
    await finished;
    t.comment(`a new scheduler finished the import ${Math.round(performance.now() - started)} ms after it started`);
    await stopChild(child);
    t.match(await importRow(id), { status: 'completed', rows_done: ROWS, total: ROWS, created: ROWS, failed: 0 });
    await assertWrittenOnce(t, 'kill');
  },
);
