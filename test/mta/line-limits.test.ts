import libmime from 'libmime';
import { authenticate } from 'mailauth';
import t from 'tap';
import { request, errorShape } from '../helpers/http.js';
import { startMtaFixture } from '../helpers/mta-fixture.js';
import { seededRandom } from '../helpers/seeded-random.js';

/**
 * RFC 5321/5322 line limits on the wire: messages built from random long subjects, display
 * names, custom header values and addresses go through POST /emails, the queue and the MTA to a
 * loopback sink. Every line that arrives is at most 998 octets, DKIM still verifies (mailauth),
 * and the long values decode back to what was sent. What cannot be carried (a header name over
 * 76 characters) is refused at POST /emails with 422 validation_error naming the field.
 */
const SEED = Number(process.env.LINE_LIMITS_SEED ?? 5322);
const ROUNDS = Number(process.env.LINE_LIMITS_ROUNDS ?? 12);
const random = seededRandom(SEED);
const pick = <T>(items: T[]): T => items[Math.floor(random() * items.length)]!;

const fx = await startMtaFixture({ sinkHosts: ['127.0.0.10'] });
t.teardown(() => fx.close());
fx.dns.add(
  { type: 'MX', name: 'dest.test', exchange: 'mx1.dest.test', priority: 10 },
  { type: 'A', name: 'mx1.dest.test', address: '127.0.0.10' },
);
const sink = fx.sinks[0]!;

/** Text of `length` characters: runs without whitespace of random length, sometimes non-ASCII. */
function longText(length: number): string {
  const alphabets = ['abcdefghijklmnopqrstuvwxyz', 'ABCDEFGHIJ0123456789-_.', 'äöüßéñ', '日本語の件名', '🙂📬✉'].map(
    (a) => Array.from(a),
  );
  let text = '';
  while (text.length < length) {
    const run = Math.floor(random() * (random() < 0.3 ? 1500 : 40)) + 1;
    const alphabet = pick(alphabets);
    for (let i = 0; i < run && text.length < length; i++) text += alphabet[Math.floor(random() * alphabet.length)];
    if (random() < 0.5) text += ' ';
  }
  return text.trim() || 'x';
}

/** The longest prefix of `text` within `max` UTF-8 bytes, whole characters only. */
function clipBytes(text: string, max: number): string {
  let out = '';
  for (const char of text) {
    if (Buffer.byteLength(out + char) > max) break;
    out += char;
  }
  return out.trim() || 'x';
}

const linesOver = (data: Buffer) =>
  data
    .toString('latin1')
    .split('\r\n')
    .filter((line) => Buffer.byteLength(line, 'latin1') > 998)
    .map((line) => line.length);
const headerOf = (data: Buffer, name: string) => {
  const head = data
    .toString('utf8')
    .split('\r\n\r\n')[0]!
    .replace(/\r\n[ \t]/g, ' ');
  return head
    .split('\r\n')
    .find((line) => line.toLowerCase().startsWith(`${name.toLowerCase()}:`))
    ?.slice(name.length + 1)
    .trim();
};

t.test(`${ROUNDS} random messages with long values, seed ${SEED}: no line over 998 octets, DKIM passes`, async (t) => {
  for (let round = 0; round < ROUNDS; round++) {
    // The API takes subjects of one line up to 998 bytes: with its name the line would be longer.
    const subject = clipBytes(longText(pick([100, 500, 998])), pick([100, 997, 998]));
    const name = longText(pick([20, 120, 256]))
      .slice(0, 256)
      .replace(/["\\<>@,;:]/g, 'x');
    const value = longText(pick([500, 1200, 3000]));
    const local = 'l'.repeat(pick([1, 40, 60]));
    const to = `${local}.${round}@dest.test`;
    const before = sink.messages.length;
    const id = await fx.send({
      from: `${name} <hello@sender.test>`,
      to: [to],
      subject,
      headers: { 'X-Long-Value': value, [`X-${'h'.repeat(pick([1, 30, 74]))}`]: 'short' },
    });
    await fx.waitFor(async () => sink.messages.length > before, `round ${round} delivered`);
    const arrived = sink.messages.find((m) => m.to.includes(to))!;
    t.same(linesOver(arrived.data), [], `round ${round}: every line within 998 octets (${id})`);
    const result = (await authenticate(arrived.data, {
      resolver: fx.resolver as never,
      ip: '127.0.0.2',
      helo: 'out2.mailroom.test',
      sender: arrived.from,
      mta: 'mx1.dest.test',
    } as never)) as { dkim: { results: Array<{ status: { result: string } }> } };
    t.equal(result.dkim.results[0]?.status.result, 'pass', `round ${round}: DKIM verifies`);
    t.equal(
      libmime.decodeWords(headerOf(arrived.data, 'Subject') ?? ''),
      subject,
      `round ${round}: the subject decodes back`,
    );
    t.equal(
      libmime.decodeWords(headerOf(arrived.data, 'X-Long-Value') ?? ''),
      value,
      `round ${round}: the custom value decodes back`,
    );
  }
});

t.test('a header name over 76 characters is refused at POST /emails', async (t) => {
  const name = `X-${'n'.repeat(75)}`;
  const res = await request(fx.app.url, '/emails', {
    method: 'POST',
    token: fx.token,
    body: { from: 'hello@sender.test', to: 'a@dest.test', subject: 's', text: 't', headers: { [name]: 'v' } },
  });
  const error = errorShape(t, res, 422, 'validation_error');
  t.match(JSON.stringify(res.body), /headers/, 'the refusal names the field');
  t.match(error.message, /76/);
});
