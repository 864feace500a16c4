import t, { type Test } from 'tap';
import { request } from '../helpers/http.js';
import { receiveMessage, receivingDomain } from '../helpers/received-mail.js';
import { startTestApp } from '../helpers/test-app.js';
import { markedVerifiedDomain } from '../helpers/verified-domain.js';

/**
 * Attachment downloads for any file name (issue 31, item 10): the name is sent as RFC 6266
 * says, an ASCII `filename="..."` fallback and, when the name is not plain ASCII, its exact
 * UTF-8 form in `filename*=UTF-8''...` (RFC 5987 percent-encoding). Names outside Latin-1 used
 * to answer a plain-text 500. Control characters (NUL, CR, LF...) become `_` in both forms;
 * names over 255 characters are cut before their extension.
 */
const app = await startTestApp();
t.teardown(() => app.close());

const team = await app.createTeam('Names', 'unlimited');
const sendingDomain = `names-${Math.random().toString(36).slice(2, 8)}.test`;
await markedVerifiedDomain(app, team.teamId, sendingDomain);
const inbox = await receivingDomain(app, team.teamId);

/** The RFC 5987 value of `filename*` decoded, as a browser reads it. */
function decodedExtended(disposition: string): string | undefined {
  const value = /;\s*filename\*=UTF-8''([^;\s]+)/.exec(disposition)?.[1];
  return value === undefined ? undefined : decodeURIComponent(value);
}
/** The quoted `filename` fallback, unquoted. */
const fallbackOf = (disposition: string) => /;\s*filename="([^"]*)"/.exec(disposition)?.[1];

type Case = { name: string; disposition: string; decoded: string };

const LONG = 'é'.repeat(1000) + '.txt';
const CASES_SENT: Case[] = [
  {
    name: 'Отчёт.pdf',
    disposition: `attachment; filename="_____.pdf"; filename*=UTF-8''%D0%9E%D1%82%D1%87%D1%91%D1%82.pdf`,
    decoded: 'Отчёт.pdf',
  },
  {
    name: '报告.pdf',
    disposition: `attachment; filename="__.pdf"; filename*=UTF-8''%E6%8A%A5%E5%91%8A.pdf`,
    decoded: '报告.pdf',
  },
  {
    name: 'a\uFFFDb.pdf',
    disposition: `attachment; filename="a_b.pdf"; filename*=UTF-8''a%EF%BF%BDb.pdf`,
    decoded: 'a\uFFFDb.pdf',
  },
  {
    name: 'say "hi" \\ 50%.txt',
    disposition: `attachment; filename="say _hi_ _ 50_.txt"; filename*=UTF-8''say%20%22hi%22%20%5C%2050%25.txt`,
    decoded: 'say "hi" \\ 50%.txt',
  },
  { name: 'report.pdf', disposition: 'attachment; filename="report.pdf"', decoded: 'report.pdf' },
  {
    name: 'ñ'.repeat(251) + '.pdf',
    disposition: `attachment; filename="${'_'.repeat(251)}.pdf"; filename*=UTF-8''${'%C3%B1'.repeat(251)}.pdf`,
    decoded: 'ñ'.repeat(251) + '.pdf',
  },
];
// Received mail carries names the API refuses: control characters, and any length.
const CASES_RECEIVED: Case[] = [
  ...CASES_SENT,
  { name: 'a\u0000b.txt', disposition: 'attachment; filename="a_b.txt"', decoded: 'a_b.txt' },
  { name: 'a\r\nb.txt', disposition: 'attachment; filename="a__b.txt"', decoded: 'a__b.txt' },
  {
    name: 'x\r\nContent-Type: text/html\r\n\r\n<b>.txt',
    disposition: 'attachment; filename="x__Content-Type: text/html____<b>.txt"',
    decoded: 'x__Content-Type: text/html____<b>.txt',
  },
  {
    name: LONG,
    disposition: `attachment; filename="${'_'.repeat(251)}.txt"; filename*=UTF-8''${'%C3%A9'.repeat(251)}.txt`,
    decoded: 'é'.repeat(251) + '.txt',
  },
];

const contentOf = (i: number) => Buffer.from(`file number ${i}\u0000\u00ff binary`, 'latin1');

async function download(url: string) {
  const link = new URL(url);
  const res = await fetch(link, { headers: { 'user-agent': 'browser' } });
  return { res, bytes: Buffer.from(await res.arrayBuffer()) };
}

async function checkDownloads(t: Test, cases: Case[], urls: string[]) {
  t.equal(urls.length, cases.length, 'one download link per attachment');
  for (const [i, c] of cases.entries()) {
    const { res, bytes } = await download(urls[i]!);
    const label = JSON.stringify(c.name.slice(0, 40));
    t.equal(res.status, 200, `${label}: 200`);
    const disposition = res.headers.get('content-disposition') ?? '';
    t.equal(disposition, c.disposition, `${label}: Content-Disposition`);
    t.same(bytes, contentOf(i), `${label}: the exact bytes`);
    t.equal(decodedExtended(disposition) ?? fallbackOf(disposition), c.decoded, `${label}: the name decodes back`);
    t.equal(res.headers.get('x-content-type-options'), 'nosniff');
  }
}

t.test('sent attachments: every name downloads, encoded per RFC 6266', async (t) => {
  const res = await request(app.url, '/emails', {
    method: 'POST',
    token: team.token,
    body: {
      from: `files@${sendingDomain}`,
      to: 'someone@example.net',
      subject: 'Files',
      text: 'attached',
      attachments: CASES_SENT.map((c, i) => ({ filename: c.name, content: contentOf(i).toString('base64') })),
    },
  });
  t.equal(res.status, 200, res.text);
  const list = await request(app.url, `/emails/${res.body.id}/attachments`, { token: team.token });
  t.equal(list.status, 200);
  t.same(
    list.body.data.map((a: { filename: string }) => a.filename),
    CASES_SENT.map((c) => c.name),
    'the API keeps the names as given',
  );
  await checkDownloads(
    t,
    CASES_SENT,
    list.body.data.map((a: { download_url: string }) => a.download_url),
  );
});

const percentUtf8 = (name: string) =>
  [...Buffer.from(name, 'utf8')].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('');

t.test('received attachments: every name downloads, control characters included', async (t) => {
  const parts = CASES_RECEIVED.map((c, i) =>
    [
      '--part',
      'Content-Type: application/octet-stream',
      `Content-Disposition: attachment; filename*=utf-8''${percentUtf8(c.name)}`,
      'Content-Transfer-Encoding: base64',
      '',
      contentOf(i).toString('base64'),
    ].join('\r\n'),
  );
  const raw = [
    'From: Sender <sender@elsewhere.test>',
    `To: files@${inbox}`,
    'Subject: Files',
    'Message-ID: <names@elsewhere.test>',
    'MIME-Version: 1.0',
    'Content-Type: multipart/mixed; boundary="part"',
    '',
    '--part',
    'Content-Type: text/plain',
    '',
    'attached',
    ...parts,
    '--part--',
    '',
  ].join('\r\n');
  const result = await receiveMessage(app, { from: 'sender@elsewhere.test', to: [`files@${inbox}`], raw });
  const id = result.received[0]!.id;
  const list = await request(app.url, `/emails/receiving/${id}/attachments`, { token: team.token });
  t.equal(list.status, 200, 'the list');
  await checkDownloads(
    t,
    CASES_RECEIVED,
    list.body.data.map((a: { download_url: string }) => a.download_url),
  );
});

t.test('a received attachment with a content type that is no MIME type downloads as octet-stream', async (t) => {
  const raw = [
    'From: sender@elsewhere.test',
    `To: files@${inbox}`,
    'Subject: Odd type',
    'MIME-Version: 1.0',
    'Content-Type: multipart/mixed; boundary="part"',
    '',
    '--part',
    'Content-Type: text/plain',
    '',
    'attached',
    '--part',
    'Content-Type: application/пдф',
    `Content-Disposition: attachment; filename="odd.bin"`,
    '',
    'odd bytes',
    '--part--',
    '',
  ].join('\r\n');
  const result = await receiveMessage(app, { from: 'sender@elsewhere.test', to: [`files@${inbox}`], raw });
  const list = await request(app.url, `/emails/receiving/${result.received[0]!.id}/attachments`, {
    token: team.token,
  });
  t.equal(list.status, 200, 'the list');
  const { res, bytes } = await download(list.body.data[0].download_url);
  t.equal(res.status, 200);
  t.equal(res.headers.get('content-disposition'), 'attachment; filename="odd.bin"');
  t.equal(res.headers.get('content-type'), 'application/octet-stream');
  t.match(bytes.toString(), /odd bytes/);
});
