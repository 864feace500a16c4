import t from 'tap';
import DataStream from 'nodemailer/lib/smtp-connection/data-stream';
import { hasOnlyCrlf } from '../../lib/mail/line-endings.js';
import { stuffDots, WireDataStream } from '../../mta/delivery/wire-data-stream.js';

/** What a stream writes for these chunks, written as nodemailer writes a message (write, end). */
async function output(stream: DataStream, chunks: Buffer[]): Promise<{ bytes: Buffer; pushes: number; out: number; in: number }> {
  const parts: Buffer[] = [];
  stream.on('data', (part: Buffer) => parts.push(part));
  const ended = new Promise((resolve) => stream.on('end', resolve));
  for (const chunk of chunks) stream.write(chunk);
  stream.end();
  await ended;
  return { bytes: Buffer.concat(parts), pushes: parts.length, out: stream.outByteCount, in: stream.inByteCount };
}

/** A deterministic pseudo-random message from pieces that stress stuffing and line breaks. */
function message(seed: number, pieces: string[]): Buffer {
  let state = seed;
  const next = () => (state = (state * 1103515245 + 12345) % 2 ** 31);
  let text = '';
  const length = 1 + (next() % 60);
  for (let i = 0; i < length; i++) text += pieces[next() % pieces.length];
  return Buffer.from(text, 'latin1');
}

t.test('line-break check: CRLF only, or not', async (t) => {
  t.ok(hasOnlyCrlf(Buffer.from('a\r\nb\r\n')));
  t.ok(hasOnlyCrlf(Buffer.from('no break at all')));
  t.notOk(hasOnlyCrlf(Buffer.from('a\nb\r\n')), 'bare LF');
  t.notOk(hasOnlyCrlf(Buffer.from('a\r\nb\rc\r\n')), 'bare CR');
  t.notOk(hasOnlyCrlf(Buffer.from('\nstart')), 'LF first');
  t.notOk(hasOnlyCrlf(Buffer.from('end\r')), 'CR last');
  t.notOk(hasOnlyCrlf(Buffer.from('a\r\r\nb')), 'CR CR LF');
  t.equal(stuffDots(Buffer.from('.a\r\n..b\r\nc.\r\n.\r\n')).toString(), '..a\r\n...b\r\nc.\r\n..\r\n');
});

t.test('the same bytes as nodemailer\'s DataStream for CRLF messages, bare CRs and LFs, dots, several chunks', async (t) => {
  const canonical = ['a', 'b c', '.', '..', '\r\n', '\r\n.', '\r\n.\r\n', ' '];
  const hostile = [...canonical, '\r', '\n', '\n.', '\r.', '\r.\r', '\n.\n', '\r\r\n'];
  let fast = 0;
  for (let seed = 1; seed <= 3000; seed++) {
    const bytes = message(seed, seed % 2 ? canonical : hostile);
    const split = seed % 3 === 0 ? [bytes.subarray(0, bytes.length >> 1), bytes.subarray(bytes.length >> 1)].filter((b) => b.length > 0) : [bytes];
    const expected = await output(new DataStream(), split);
    const actual = await output(new WireDataStream(), split);
    if (!actual.bytes.equals(expected.bytes) || actual.out !== expected.out || actual.in !== expected.in) {
      t.fail(`seed ${seed}: ${JSON.stringify(bytes.toString('latin1'))} -> ${JSON.stringify(actual.bytes.toString('latin1'))}, nodemailer ${JSON.stringify(expected.bytes.toString('latin1'))}`);
      return;
    }
    if (split.length === 1 && hasOnlyCrlf(bytes)) {
      fast++;
      if (actual.pushes !== 1) t.fail(`seed ${seed}: a CRLF message leaves in ${actual.pushes} writes`);
    }
  }
  t.ok(fast > 500, `${fast} messages took the fast path, each in one write with its final dot`);
});

t.test('SMTP smuggling sequences are made harmless exactly as nodemailer does', async (t) => {
  for (const text of ['a\r\n.\r\nMAIL FROM:<x>\r\n', 'a\n.\nMAIL FROM:<x>\n', 'a\r.\rMAIL FROM:<x>\r', 'a\r\n.\nb', 'a\n.\r\nb']) {
    const expected = await output(new DataStream(), [Buffer.from(text)]);
    const actual = await output(new WireDataStream(), [Buffer.from(text)]);
    t.equal(actual.bytes.toString(), expected.bytes.toString(), JSON.stringify(text));
    t.equal(actual.bytes.toString().indexOf('\r\n.\r\n'), actual.bytes.length - 5, 'the only end-of-data sequence is the last one');
  }
});
