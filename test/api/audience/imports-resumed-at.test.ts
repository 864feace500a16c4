import { BATCH_RECORDS } from '../../../core/audience/imports/contact-import.runner.js';
import t from 'tap';
import { request } from '../../helpers/http.js';
import { generatedCsv, importWorker, runImports, uploadImport } from '../../helpers/contact-imports.js';
import { startTestApp } from '../../helpers/test-app.js';

/**
 * `resumed_at` on an import: null while it runs in one go; set when a run takes over an import
 * an earlier run had started and stopped part-way (a shutdown or a crash), so the dashboard can
 * say "resumed after a restart". On both databases.
 */
const app = await startTestApp();
t.teardown(() => app.close());

const team = await app.createTeam('Resumed', 'unlimited');
await request(app.url, '/contact-properties', {
  method: 'POST',
  token: team.token,
  body: { key: 'seats', type: 'number' },
});
const get = async (id: string) => (await request(app.url, `/contacts/imports/${id}`, { token: team.token })).body;

t.test('an import run in one go is never resumed', async (t) => {
  const { id } = (await uploadImport(app, team.token, generatedCsv(20, 'once'))).body;
  t.equal((await get(id)).resumed_at, null, 'queued: null');
  await runImports(app.runtime);
  const done = await get(id);
  t.match(done, { status: 'completed', resumed_at: null, counts: { total: 20, created: 20 } });
  const listed = (await request(app.url, '/contacts/imports', { token: team.token })).body.data;
  t.equal(listed.find((i: { id: string }) => i.id === id).resumed_at, null, 'listed the same way');
});

const ROWS = BATCH_RECORDS * 2 + BATCH_RECORDS / 2; // three batches

t.test('stopped after a batch and taken over: resumed_at is set and shown by retrieve and list', async (t) => {
  const { id } = (await uploadImport(app, team.token, generatedCsv(ROWS, 'again'))).body;
  const stopping = new AbortController();
  stopping.abort();
  await app.runtime.services.contactImportRunner.runNext(await importWorker(app.runtime, stopping.signal));
  const stopped = await get(id);
  t.match(
    stopped,
    { status: 'in_progress', resumed_at: null, counts: { total: BATCH_RECORDS } },
    'given back, not yet resumed',
  );

  await runImports(app.runtime);
  const done = await get(id);
  t.match(done, { status: 'completed', counts: { total: ROWS, created: ROWS } });
  t.type(done.resumed_at, 'string');
  t.ok(Date.parse(done.resumed_at) <= Date.parse(done.completed_at), 'before it completed');
  const listed = (await request(app.url, '/contacts/imports', { token: team.token })).body.data;
  t.equal(listed.find((i: { id: string }) => i.id === id).resumed_at, done.resumed_at, 'listed the same way');
});
