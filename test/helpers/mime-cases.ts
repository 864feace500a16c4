import type MailComposer from 'nodemailer/lib/mail-composer';

/** Message options for comparing MIME output: the send path's shapes and generated bodies. */
export type Mail = ConstructorParameters<typeof MailComposer>[0];

/** Fixed boundary base, date and message id, so two compositions of a case give the same bytes. */
export const FIXED = {
  baseBoundary: '0123456789abcdef',
  date: new Date('2026-11-23T10:00:00Z'),
  messageId: '<id-1@example.com>',
  disableFileAccess: true,
  disableUrlAccess: true,
  xMailer: false as const,
};

/** A small deterministic generator (mulberry32), so a failure names a case that can be re-run. */
function random(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

// Pieces that steer the encoders: long lines, whitespace before line breaks, lone CR or LF,
// non-ASCII (both UTF-8 widths), '=', dots and spaces near the wrap column.
const PIECES = [
  'Hello world',
  ' ',
  '  ',
  '\t',
  '\r\n',
  '\n',
  '\r',
  'é',
  'ß',
  '日本語',
  '😀',
  '=',
  '.',
  ',',
  'x'.repeat(75),
  'y'.repeat(80),
  '<p>Hi</p>',
  '=3D',
  '\u0000',
  '\u007f',
];

function text(next: () => number, size: number): string {
  let out = '';
  while (out.length < size) out += PIECES[Math.floor(next() * PIECES.length)];
  return out;
}

const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

/** Named shapes: what the send path composes (bodies, addresses, custom headers, attachments). */
export const SHAPES: Array<[string, Mail]> = [
  [
    'bench message',
    {
      from: { name: 'Bench', address: 'bench@bench.test' },
      to: [{ name: '', address: 'r1@example.net' }],
      subject: 'Benchmark message 1',
      html: '<p>Hello 1</p>'.repeat(20),
      text: 'Hello 1',
    },
  ],
  ['text only', { from: 'a@example.com', to: 'b@example.net', subject: 'Hi', text: 'Just text' }],
  ['html only', { from: 'a@example.com', to: 'b@example.net', subject: 'Hi', html: '<b>bold</b>' }],
  ['no body', { from: 'a@example.com', to: 'b@example.net', subject: 'Empty' }],
  ['empty strings', { from: 'a@example.com', to: 'b@example.net', subject: '', html: '', text: '' }],
  ['ends without a line break', { from: 'a@example.com', to: 'b@example.net', subject: 'x', text: 'no newline' }],
  ['ends with CR', { from: 'a@example.com', to: 'b@example.net', subject: 'x', text: 'ends in CR\r' }],
  [
    'non-ASCII everywhere',
    {
      from: { name: 'Jõgeva Café', address: 'kõik@jõgeva.ee' },
      to: [{ name: '日本', address: 'user@例え.jp' }],
      cc: [{ name: 'Ünï', address: 'c@example.org' }],
      replyTo: [{ name: 'Reply, Person', address: 'r@example.org' }],
      subject: 'Grüße 😀 '.repeat(12),
      html: '<p>Grüße</p>\n'.repeat(30),
      text: 'Grüße\n'.repeat(30),
      headers: {
        'X-Custom': 'välue',
        'X-Entity-Ref-ID': '123',
        'x-smtpapi': '{}',
        'mime-version': '1.0',
        'content-features': 'x',
      },
    },
  ],
  [
    'one attachment',
    {
      from: 'a@example.com',
      to: 'b@example.net',
      subject: 'x',
      html: '<p>see</p>',
      text: 'see',
      attachments: [{ filename: 'report.pdf', content: Buffer.alloc(5000, 7) }],
    },
  ],
  [
    'inline image',
    {
      from: 'a@example.com',
      to: 'b@example.net',
      subject: 'x',
      html: '<img src="cid:logo">',
      attachments: [{ filename: 'logo.png', content: png, cid: 'logo' }],
    },
  ],
  [
    'inline image and attachment',
    {
      from: 'a@example.com',
      to: 'b@example.net',
      subject: 'x',
      html: '<img src="cid:logo">',
      text: 'logo',
      attachments: [
        { filename: 'logo.png', content: png, cid: 'logo' },
        { filename: 'a.pdf', content: Buffer.alloc(100, 1) },
      ],
    },
  ],
  [
    'text attachment',
    {
      from: 'a@example.com',
      to: 'b@example.net',
      subject: 'x',
      text: 'body',
      attachments: [
        { filename: 'notes.txt', content: Buffer.from('line one\r\nline two  \r\n'), contentType: 'text/plain' },
      ],
    },
  ],
  [
    'several attachments, one empty',
    {
      from: 'a@example.com',
      to: 'b@example.net',
      subject: 'x',
      html: '<p>x</p>',
      attachments: [
        { filename: 'empty.bin', content: Buffer.alloc(0) },
        { filename: 'ünïcode näme.csv', content: Buffer.from('a,b\n1,2\n') },
        { content: Buffer.from('no name') },
      ],
    },
  ],
];

/** Generated bodies: 100 small ones, then 20 past the encoders' 64 KiB slices. */
export function generatedCases(): Array<[string, Mail]> {
  const next = random(20261123);
  const cases: Array<[string, Mail]> = [];
  for (let i = 0; i < 120; i++) {
    const size = i < 100 ? Math.floor(next() * 3000) : 70_000 + Math.floor(next() * 70_000);
    const mail: Mail = { from: 'a@example.com', to: 'b@example.net', subject: text(next, 40) };
    if (next() < 0.8) mail.html = text(next, size);
    if (next() < 0.8) mail.text = text(next, size);
    if (next() < 0.3) mail.attachments = [{ filename: 'data.bin', content: Buffer.from(text(next, size)) }];
    cases.push([`case ${i} (${size} characters)`, mail]);
  }
  return cases;
}
