import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { movableClock } from '../../helpers/clock.js';
import { customerWrites, startInboxApp } from '../../helpers/inbox-fixture.js';

/**
 * The purge-inboxes job: references to emails past their own retention go, then threads left
 * empty; drafts deleted or sent, and deleted inboxes, go after 30 days with their files.
 */
const clock = movableClock();
const fx = await startInboxApp({ clock });
t.teardown(() => fx.app.close());
const { resend, app, address, inboxId, team } = fx;
const knex = app.runtime.db.knex;
const dataDir = app.runtime.config.dataDir;
const draftFiles = () => (existsSync(join(dataDir, 'inbox-drafts')) ? readdirSync(join(dataDir, 'inbox-drafts')) : []);

t.test('a purged received email takes its reference, and then its emptied thread, with it', async (t) => {
  const kept = await customerWrites(app, { to: address, subject: 'Kept' });
  const purged = await customerWrites(app, { to: address, subject: 'Purged' });
  const threads = (await resend.inboxes.threads.list({ inboxId })).data!.data;
  const purgedThread = threads.find((thread) => thread.subject === 'Purged')!;
  const label = (await resend.inboxes.labels.create({ inboxId, name: 'Gone soon' })).data!.id;
  await resend.inboxes.threads.labels.add({ inboxId, threadId: purgedThread.id, labels: [label] });
  // The received email's own retention removed it (as purge-received-emails does).
  await knex('received_emails').where({ id: purged.receivedId }).delete();
  const before = await resend.inboxes.threads.emails.list({ inboxId, threadId: purgedThread.id });
  t.equal(before.error, null, 'until the job runs, the email reads without bodies');
  t.equal(before.data!.data[0]!.text, null);
  clock.advanceTo(Date.now() + 31 * 86_400_000);
  const result = await app.runtime.services.inboxRetention.purge();
  t.match(result, { messages: 1, threads: 1 });
  t.equal((await resend.inboxes.threads.get({ inboxId, threadId: purgedThread.id })).error?.name, 'not_found');
  t.same(await knex('inbox_thread_labels').where({ thread_id: purgedThread.id }), []);
  const remaining = (await resend.inboxes.threads.list({ inboxId })).data!.data.map((thread) => thread.subject);
  t.same(remaining, ['Kept']);
  t.ok(kept.receivedId);
});

t.test('old deleted and sent drafts go with their files; open drafts stay', async (t) => {
  const file = { filename: 'notes.txt', content: Buffer.from('hello').toString('base64'), contentType: 'text/plain' };
  const open = await resend.inboxes.drafts.create({
    inboxId,
    to: 'a@partner.test',
    subject: 'Open',
    text: 'x',
    attachments: [file],
  });
  const deleted = await resend.inboxes.drafts.create({
    inboxId,
    to: 'a@partner.test',
    subject: 'Deleted',
    text: 'x',
    attachments: [file],
  });
  await resend.inboxes.drafts.remove({ inboxId, draftId: deleted.data!.id });
  t.equal(draftFiles().length, 2);
  t.same(
    await app.runtime.services.inboxRetention.purge(),
    { messages: 0, threads: 0, drafts: 0, inboxes: 0 },
    'not yet 30 days',
  );
  clock.advanceTo(clock.now().getTime() + 31 * 86_400_000);
  t.match(await app.runtime.services.inboxRetention.purge(), { drafts: 1 });
  t.equal(draftFiles().length, 1, 'the deleted draft’s file is gone');
  t.equal((await resend.inboxes.drafts.get({ inboxId, draftId: open.data!.id })).error, null, 'the open draft stays');
});

t.test('a deleted inbox goes after 30 days with everything under it', async (t) => {
  await resend.inboxes.remove(inboxId);
  clock.advanceTo(clock.now().getTime() + 31 * 86_400_000);
  const first = await app.runtime.services.inboxRetention.purge();
  t.equal(first.inboxes, 1);
  await app.runtime.services.inboxRetention.purge();
  for (const table of ['inboxes', 'inbox_threads', 'inbox_messages', 'inbox_labels', 'inbox_drafts'])
    t.same(await knex(table).where({ team_id: team.teamId }), [], `${table} emptied`);
  t.same(draftFiles(), [], 'draft files too');
});
