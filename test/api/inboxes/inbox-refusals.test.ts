import { rmSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { errorShape, request } from '../../helpers/http.js';
import { customerWrites, startInboxApp } from '../../helpers/inbox-fixture.js';

/**
 * Every refusal of the inbox routes, with the spec's error body: the limits the SDK's comments
 * state (files on a draft, label colours, the headers a send from an inbox sets itself), the
 * rules of inboxes and threads, and 404s (another team's inbox, by id and by address, looks
 * exactly like one that does not exist).
 */
const fx = await startInboxApp();
t.teardown(() => fx.app.close());
const { app, address, inboxId, team } = fx;
const call = (path: string, method = 'GET', body?: unknown) =>
  request(app.url, `/inboxes/${inboxId}${path}`, { method, token: team.token, body });

const first = await customerWrites(app, { to: address });
const threadId = (await call('/threads')).body.data[0].id as string;
const emailPath = `/threads/${threadId}/emails/${first.receivedId}`;

t.test('inboxes: address rules', async (t) => {
  const other = await request(app.url, '/inboxes', {
    method: 'POST',
    token: team.token,
    body: { email_address: 'help@not-ours.test' },
  });
  t.match(errorShape(t, other, 422, 'validation_error').message, /not a receiving domain of this team/);
  const twice = await request(app.url, '/inboxes', {
    method: 'POST',
    token: team.token,
    body: { email_address: address },
  });
  t.match(errorShape(t, twice, 422, 'validation_error').message, /already exists/);
  const upper = await request(app.url, '/inboxes', {
    method: 'POST',
    token: team.token,
    body: { email_address: address.toUpperCase() },
  });
  errorShape(t, upper, 422, 'validation_error');
  const missing = await request(app.url, '/inboxes', { method: 'POST', token: team.token, body: { name: 'x' } });
  errorShape(t, missing, 422, 'missing_required_field');
  const malformed = await request(app.url, '/inboxes', {
    method: 'POST',
    token: team.token,
    body: { email_address: 'nope' },
  });
  errorShape(t, malformed, 400, 'validation_error');
  const empty = await call('', 'PATCH', {});
  errorShape(t, empty, 422, 'missing_required_field');
  const agentEmpty = await call('/agent', 'PATCH', {});
  errorShape(t, agentEmpty, 422, 'missing_required_field');
  const badTone = await call('/agent', 'PATCH', { tone: 'shouty' });
  errorShape(t, badTone, 400, 'validation_error');
  const badAction = await call('/agent', 'PATCH', { actions: ['send_reply'] });
  errorShape(t, badAction, 400, 'validation_error');
});

t.test('another team: 404, byte-identical to an inbox that does not exist, by id and by address', async (t) => {
  const attacker = await app.createTeam('Attacker', 'unlimited');
  for (const selector of [inboxId, encodeURIComponent(address)]) {
    const foreign = await request(app.url, `/inboxes/${selector}/threads`, { token: attacker.token });
    const none = await request(app.url, `/inboxes/${selector}/threads`, {
      token: (await app.createTeam('Nobody')).token,
    });
    errorShape(t, foreign, 404, 'not_found');
    t.equal(foreign.text, none.text);
  }
  const missingAddress = await request(app.url, `/inboxes/${encodeURIComponent('nobody@nowhere.test')}`, {
    token: team.token,
  });
  errorShape(t, missingAddress, 404, 'not_found');
});

t.test('labels: #RRGGBB colours, unique names, existing labels only', async (t) => {
  for (const color of ['#GGGGGG', 'red', '#FFF', 'E93D82', '#E93D8200']) {
    const refused = await call('/labels', 'POST', { name: `L ${color}`, color });
    t.match(errorShape(t, refused, 422, 'validation_error').message, /#RRGGBB/, color);
  }
  const made = await call('/labels', 'POST', { name: 'Billing', color: '#e93d82' });
  t.equal(made.status, 201);
  const listed = await call('/labels');
  t.equal(listed.body.data[0].color, '#E93D82', 'stored upper-case');
  errorShape(t, await call('/labels', 'POST', { name: 'billing' }), 422, 'validation_error');
  errorShape(t, await call('/labels', 'POST', { name: '   ' }), 400, 'validation_error');
  errorShape(t, await call(`/labels/${made.body.id}`, 'PATCH', {}), 422, 'missing_required_field');
  errorShape(t, await call(`/labels/${made.body.id}`, 'PATCH', { color: '#12345' }), 422, 'validation_error');
  errorShape(t, await call('/labels/00000000-0000-7000-8000-000000000000', 'DELETE'), 404, 'not_found');
  const unknown = await call(`/threads/${threadId}/labels`, 'POST', {
    labels: ['00000000-0000-7000-8000-000000000000'],
  });
  t.match(errorShape(t, unknown, 422, 'validation_error').message, /No label of this inbox/);
  const eleven = Array.from({ length: 11 }, () => made.body.id);
  errorShape(t, await call(`/threads/${threadId}/labels`, 'POST', { labels: eleven }), 400, 'validation_error');
  errorShape(t, await call(`/threads/${threadId}/labels`, 'POST', { labels: [] }), 400, 'validation_error');
  const removeUnknown = await call(`/threads/${threadId}/labels/00000000-0000-7000-8000-000000000000`, 'DELETE');
  errorShape(t, removeUnknown, 404, 'not_found');
});

t.test('threads: at least one change, the folders a thread can be moved to, members only', async (t) => {
  errorShape(t, await call(`/threads/${threadId}`, 'PATCH', {}), 422, 'missing_required_field');
  errorShape(t, await call(`/threads/${threadId}`, 'PATCH', { folder: 'sent' }), 400, 'validation_error');
  const stranger = await call(`/threads/${threadId}`, 'PATCH', { assignee_email: 'stranger@example.net' });
  t.match(errorShape(t, stranger, 422, 'validation_error').message, /not a member/);
  errorShape(t, await call('/threads/00000000-0000-7000-8000-000000000000'), 404, 'not_found');
  errorShape(t, await call(`/threads/${threadId}/emails/00000000-0000-7000-8000-000000000000`), 404, 'not_found');
  errorShape(t, await call('/threads?folders=inbox,junk'), 422, 'invalid_parameter');
  errorShape(t, await call('/threads?read=maybe'), 422, 'invalid_parameter');
  errorShape(t, await call('/threads/search?start_date=2026-12-01&end_date=2026-11-01'), 422, 'invalid_parameter');
});

t.test(
  'headers a send from an inbox sets itself are refused in any case, as are empty or broken names (422)',
  async (t) => {
    const cases: Array<[string, Record<string, string>]> = [
      ['In-Reply-To', { 'In-Reply-To': '<x@y>' }],
      ['references', { references: '<x@y>' }],
      ['REPLY-TO', { 'REPLY-TO': 'a@b.test' }],
      ['empty name', { '': 'x' }],
      ['line break in a value', { 'X-Note': 'a\r\nBcc: evil@example.net' }],
      ['null in a value', { 'X-Note': 'a\u0000b' }],
    ];
    for (const [label, headers] of cases) {
      const reply = await call(`${emailPath}/reply`, 'POST', { text: 'x', headers });
      errorShape(t, reply, 422, 'validation_error');
      const forward = await call(`${emailPath}/forward`, 'POST', { to: 'a@partner.test', headers });
      errorShape(t, forward, 422, 'validation_error');
      const draft = await call('/drafts', 'POST', { to: 'a@partner.test', text: 'x' });
      const send = await call(`/drafts/${draft.body.id}/send`, 'POST', { headers });
      t.equal(errorShape(t, send, 422, 'validation_error').name, 'validation_error', label);
    }
    const noBody = await call(`${emailPath}/reply`, 'POST', { subject: 'only a subject' });
    errorShape(t, noBody, 422, 'missing_required_field');
    const noTo = await call(`${emailPath}/forward`, 'POST', { text: 'x' });
    errorShape(t, noTo, 422, 'missing_required_field');
  },
);

t.test('drafts: files (empty, blocked types, unreachable paths, 25 MB in all) and what a send needs', async (t) => {
  const file = (filename: string, bytes: number) => ({
    filename,
    content: Buffer.alloc(bytes, 'a').toString('base64'),
    contentType: 'application/octet-stream',
    content_type: 'application/octet-stream',
  });
  const bodyFile = ({ contentType: _c, ...rest }: ReturnType<typeof file>) => rest;
  const empty = await call('/drafts', 'POST', { text: 'x', attachments: [bodyFile(file('empty.txt', 0))] });
  t.match(errorShape(t, empty, 422, 'invalid_attachment').message, /empty/);
  for (const name of ['setup.exe', 'run.BAT', 'macro.js', 'x.scr']) {
    const blocked = await call('/drafts', 'POST', { text: 'x', attachments: [bodyFile(file(name, 10))] });
    t.match(errorShape(t, blocked, 422, 'invalid_attachment').message, /cannot be sent/, name);
  }
  const unreachable = await call('/drafts', 'POST', {
    text: 'x',
    attachments: [{ filename: 'a.pdf', path: 'http://127.0.0.1:1/a.pdf' }],
  });
  errorShape(t, unreachable, 422, 'invalid_attachment');
  const tooLarge = await call('/drafts', 'POST', {
    text: 'x',
    attachments: [bodyFile(file('a.bin', 13 * 1024 * 1024)), bodyFile(file('b.bin', 13 * 1024 * 1024))],
  });
  t.match(errorShape(t, tooLarge, 422, 'invalid_attachment').message, /25 MB/);
  const huge = await call('/drafts', 'POST', { html: 'x'.repeat(1_000_001) });
  t.match(
    errorShape(t, huge, 400, 'validation_error').errors,
    [{ path: 'html' }],
    'a body of more than a million characters',
  );
  const noContent = await call('/drafts', 'POST', {});
  errorShape(t, noContent, 422, 'missing_required_field');
  const halfReply = await call('/drafts', 'POST', { text: 'x', thread_id: threadId });
  errorShape(t, halfReply, 422, 'validation_error');
  const wrongThread = await call('/drafts', 'POST', {
    text: 'x',
    thread_id: '00000000-0000-7000-8000-000000000000',
    reply_to_email_id: first.receivedId,
  });
  errorShape(t, wrongThread, 404, 'not_found');
  const noRecipient = await call('/drafts', 'POST', { subject: 'Later', text: 'x' });
  errorShape(t, await call(`/drafts/${noRecipient.body.id}/send`, 'POST'), 422, 'missing_required_field');
  const noText = await call('/drafts', 'POST', { to: 'a@partner.test' });
  errorShape(t, await call(`/drafts/${noText.body.id}/send`, 'POST'), 422, 'missing_required_field');
  errorShape(t, await call(`/drafts/${noText.body.id}`, 'PATCH', {}), 422, 'missing_required_field');
  errorShape(t, await call('/drafts/00000000-0000-7000-8000-000000000000'), 404, 'not_found');
  // A sent draft is gone from the drafts; sending it again is 404.
  const noSubject = await call('/drafts', 'POST', { to: 'a@partner.test', text: 'x' });
  const refusedSubject = errorShape(
    t,
    await call(`/drafts/${noSubject.body.id}/send`, 'POST'),
    422,
    'missing_required_field',
  );
  t.match(refusedSubject.errors, [{ path: 'subject' }], 'a standalone draft needs a subject to be sent');
  // A draft whose file is not on this node's disk (another node took it, or it was lost) is
  // refused whole, never sent with an empty file.
  const withFile = await call('/drafts', 'POST', {
    to: 'a@partner.test',
    subject: 'With a file',
    text: 'x',
    attachments: [
      { filename: 'notes.txt', content_type: 'text/plain', content: Buffer.from('notes').toString('base64') },
    ],
  });
  t.equal(withFile.status, 201, withFile.text);
  rmSync(join(app.runtime.config.dataDir, 'inbox-drafts'), { recursive: true, force: true });
  const fileGone = errorShape(t, await call(`/drafts/${withFile.body.id}/send`, 'POST'), 503, 'service_unavailable');
  t.match(fileGone.message, /notes\.txt cannot be read/);
  t.equal((await call(`/drafts/${withFile.body.id}`)).status, 200, 'the draft is kept');
  const ready = await call('/drafts', 'POST', { to: 'a@partner.test', subject: 'Hello', text: 'x' });
  const sentOnce = await call(`/drafts/${ready.body.id}/send`, 'POST');
  t.equal(sentOnce.status, 200, sentOnce.text);
  errorShape(t, await call(`/drafts/${ready.body.id}/send`, 'POST'), 404, 'not_found');
});

t.test('replies and forwards: files as the SDK says', async (t) => {
  const blocked = await call(`${emailPath}/reply`, 'POST', {
    text: 'x',
    attachments: [{ filename: 'tool.exe', content: 'aGVsbG8=' }],
  });
  errorShape(t, blocked, 422, 'invalid_attachment');
  const empty = await call(`${emailPath}/forward`, 'POST', {
    to: 'a@partner.test',
    attachments: [{ filename: 'e.txt', content: '' }],
  });
  errorShape(t, empty, 422, 'invalid_attachment');
  const eleven = Array.from({ length: 11 }, (_, i) => ({ filename: `f${i}.txt`, content: 'aGVsbG8=' }));
  errorShape(
    t,
    await call(`${emailPath}/forward`, 'POST', { to: 'a@partner.test', attachments: eleven }),
    400,
    'validation_error',
  );
});
