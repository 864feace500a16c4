import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { buildMessages } from '../../bench/inbound/message.js';
import {
  headerFieldsOf,
  parseReceived,
  plainHeaderFields,
  readHeaderFields,
} from '../../core/receiving/received-message.js';
import { FIXED, generatedCases, SHAPES, type Mail } from '../helpers/mime-cases.js';

// The fields read at receipt without mailparser must be exactly mailparser's, or the fast path
// must decline (null) so mailparser reads the message: compared here over many shapes.

const compose = (mail: Mail) => new MailComposer({ ...FIXED, ...mail }).compile().build();

function emlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? emlFiles(join(dir, entry.name)) : entry.name.endsWith('.eml') ? [join(dir, entry.name)] : [],
  );
}

const CRLF = (lines: string[]) => Buffer.from(lines.join('\r\n'), 'latin1');
const plain = (head: string[], body: string[]) => CRLF([...head, '', ...body]);
const multipart = (extraHead: string[], parts: string[][], boundary = 'b1', tail = ['--b1--', '']) =>
  plain(
    [
      'From: A <a@example.com>',
      'To: b@example.com',
      'Subject: s',
      `Content-Type: multipart/mixed; boundary="${boundary}"`,
      ...extraHead,
    ],
    ['preamble', ...parts.flatMap((part) => [`--${boundary}`, ...part]), ...tail],
  );

/** Hand-written shapes at the fast path's edges: each must agree with mailparser or decline. */
const EDGES: Array<[string, Buffer]> = [
  [
    'no content type',
    plain(['From: a@example.com', 'To: b@example.com, "C, D" <c@example.com>', 'Subject: hi'], ['body']),
  ],
  [
    'folded to and subject',
    plain(['From: a@example.com', 'To: b@example.com,', ' c@example.com', 'Subject: one', '\ttwo'], ['x']),
  ],
  [
    'two to headers',
    plain(
      ['From: a@example.com', 'To: b@example.com', 'To: c@example.com', 'Cc: d@example.com', 'Bcc: e@example.com'],
      ['x'],
    ),
  ],
  ['empty first subject', plain(['From: a@example.com', 'Subject:', 'Subject: second', 'Message-ID: x@y'], ['x'])],
  [
    'group address',
    plain(
      [
        'From: a@example.com',
        'To: undisclosed: b@example.com, c@example.com;',
        'Reply-To: r@example.com, s@example.com',
      ],
      ['x'],
    ),
  ],
  ['encoded subject', plain(['From: a@example.com', 'Subject: =?utf-8?B?aMOpbGxv?='], ['x'])],
  ['encoded name', plain(['From: =?utf-8?Q?J=C3=B6rg?= <j@example.com>', 'To: b@example.com'], ['x'])],
  ['punycode domain', plain(['From: a@xn--bcher-kva.example', 'To: b@example.com'], ['x'])],
  [
    '8-bit subject',
    Buffer.concat([CRLF(['From: a@example.com', 'Subject: caf']), Buffer.from([0xc3, 0xa9]), CRLF(['', '', 'x'])]),
  ],
  ['bare LF', Buffer.from('From: a@example.com\nSubject: s\n\nbody\n')],
  ['mbox first line', plain(['From a@example.com Mon Jan 1 00:00:00 2026', 'From: a@example.com'], ['x'])],
  [
    'text attachment by disposition',
    plain(['From: a@example.com', 'Content-Disposition: attachment; filename="a.txt"'], ['x']),
  ],
  ['root pdf', plain(['From: a@example.com', 'Content-Type: application/pdf'], ['x'])],
  [
    'alternative',
    multipart(
      [],
      [
        ['Content-Type: text/plain', '', 't'],
        ['Content-Type: text/html', '', '<p>h</p>'],
      ],
    ),
  ],
  [
    'with attachment',
    multipart(
      [],
      [
        ['Content-Type: text/plain', '', 't'],
        [
          'Content-Type: application/octet-stream',
          'Content-Disposition: attachment; filename=a.bin',
          'Content-Transfer-Encoding: base64',
          '',
          'AAEC',
        ],
      ],
    ),
  ],
  ['inline text with name', multipart([], [['Content-Type: text/plain; name="a.txt"', '', 't']])],
  [
    'text disposition attachment',
    multipart([], [['Content-Type: text/plain', 'Content-Disposition: attachment', '', 't']]),
  ],
  ['odd disposition', multipart([], [['Content-Type: text/plain', 'Content-Disposition: weird', '', 't']])],
  ['part without content type', multipart([], [['X-Other: 1', '', 't']])],
  ['no close delimiter', multipart([], [['Content-Type: text/plain', '', 't']], 'b1', ['more'])],
  [
    'epilogue after close',
    multipart([], [['Content-Type: text/plain', '', 't']], 'b1', [
      '--b1--',
      'epilogue',
      '--b1',
      'Content-Type: image/png',
      '',
      'x',
    ]),
  ],
  [
    'delimiter with trailing space',
    multipart([], [['Content-Type: text/plain', '', 't', '--b1 ', 'Content-Type: image/png', '', 'x']]),
  ],
  [
    'delimiter prefix of a longer one',
    multipart([], [['Content-Type: text/plain', '', 't', '--b1x', 'Content-Type: image/png', '', 'x']]),
  ],
  [
    'nested related with image',
    multipart(
      [],
      [
        [
          'Content-Type: multipart/related; boundary=b2',
          '',
          '--b2',
          'Content-Type: text/html',
          '',
          'h',
          '--b2',
          'Content-Type: image/png',
          'Content-ID: <i@x>',
          '',
          'iVBOR',
          '--b2--',
        ],
      ],
    ),
  ],
  [
    'nested alternative',
    multipart(
      [],
      [
        [
          'Content-Type: multipart/alternative; boundary=b2',
          '',
          '--b2',
          'Content-Type: text/plain',
          '',
          't',
          '--b2',
          'Content-Type: text/html',
          '',
          'h',
          '--b2--',
          '',
        ],
      ],
    ),
  ],
  [
    'boundary with comment',
    multipart([], [['Content-Type: text/plain', '', 't']], 'b1', ['--b1--'])
      .toString('latin1')
      .replace('boundary="b1"', 'boundary="b1" (c)'),
  ],
  [
    'embedded message',
    multipart([], [['Content-Type: message/rfc822', '', 'From: x@example.com', 'Content-Type: image/png', '', 'x']]),
  ],
  [
    'digest',
    multipart([], [['', 'From: x@example.com', '', 'x']])
      .toString('latin1')
      .replace('multipart/mixed', 'multipart/digest'),
  ],
  ['signature dashes', multipart([], [['Content-Type: text/plain', '', 'text', '-- ', 'sig']])],
].map(([name, raw]) => [name as string, typeof raw === 'string' ? Buffer.from(raw, 'latin1') : (raw as Buffer)]);

async function agree(t: Pick<typeof import('tap').default, 'same'>, name: string, raw: Buffer): Promise<boolean> {
  const fast = plainHeaderFields(raw);
  const full = headerFieldsOf(await parseReceived(raw));
  if (fast !== null) t.same(fast, full, `${name}: the fast path reads what mailparser reads`);
  t.same(await readHeaderFields(raw), full, `${name}: readHeaderFields is mailparser's reading`);
  return fast !== null;
}

t.test('hand-written edge shapes', async (t) => {
  const taken: string[] = [];
  for (const [name, raw] of EDGES) if (await agree(t, name, raw)) taken.push(name);
  // The plain shapes are read without mailparser; the rest decline.
  t.same(taken, [
    'no content type',
    'folded to and subject',
    'two to headers',
    'empty first subject',
    'group address',
    'encoded name',
    'punycode domain',
    'alternative',
    'nested alternative',
    'signature dashes',
  ]);
});

t.test('composed shapes and generated cases', async (t) => {
  for (const [name, mail] of [...SHAPES, ...generatedCases()]) await agree(t, name, await compose(mail));
});

t.test('report fixtures (DSN, ARF, DMARC)', async (t) => {
  for (const file of emlFiles(join(import.meta.dirname, '../fixtures'))) await agree(t, file, readFileSync(file));
});

t.test('the benchmark messages take the fast path', async (t) => {
  const messages = buildMessages(5, 4096, { from: 'sender@sender.test', domain: 'in.test', tag: 't' });
  for (const message of messages) t.ok(await agree(t, message.to, message.data.subarray(0, -3)));
});
