import t from 'tap';
import { BroadcastMime } from '../../core/campaigns/broadcasts/broadcast-mime.js';
import { renderForRecipient } from '../../core/campaigns/broadcasts/broadcast-message.js';
import type { Broadcast } from '../../core/campaigns/broadcasts/broadcast.types.js';
import type { Contact } from '../../core/audience/contacts/contact.types.js';
import { composeMime, type ComposeInput } from '../../core/sending/emails/mime.js';
import { MimeTemplate } from '../../core/sending/emails/mime-template.js';

/**
 * A broadcast's emails rendered on a template (composed once) must be the bytes a full
 * composition of each recipient's email gives, whatever the recipient's values do to the
 * encodings: a non-ASCII name (RFC 2047 in the Subject, utf-8 charset and quoted-printable in
 * the text), values that fold the Subject, '=' in a quoted-printable body, the placeholder
 * markers themselves, a body that turns base64 (mostly non-ASCII), a line that cannot be
 * carried. Only the multipart boundary differs (random per template instead of per message):
 * both are replaced by one token before comparing byte for byte.
 */

const LONG = 'Wolfeschlegelsteinhausenbergerdorffvoralternwarengewissenhaftschaferswessenschafewarenwohlgepflegt';
const TRICKY: Array<[string, Partial<Contact>, Record<string, string>]> = [
  ['plain ASCII', { firstName: 'Ann' }, { city: 'Paris' }],
  ['no values at all (fallbacks)', { firstName: null }, {}],
  ['non-ASCII name', { firstName: 'Zoë Ångström' }, { city: 'Malmö' }],
  ['CJK name and city', { firstName: '山田太郎' }, { city: '東京都千代田区丸の内一丁目' }],
  ['a long value that folds the Subject', { firstName: `${LONG} ${LONG}` }, { city: LONG }],
  ['a long non-ASCII value', { firstName: 'Ünïcödé '.repeat(20) }, { city: 'ß'.repeat(120) }],
  ['= and quoted-printable look-alikes', { firstName: 'a=b =3D =\r\n' }, { city: '=?utf-8?Q?x?=' }],
  ['the template markers', { firstName: '{{{FIRST_NAME}}}' }, { city: '{{{city|x}}} {{brand.logo_url}}' }],
  ['HTML and header specials', { firstName: '<b>"Bob" & Co</b>; x: y,' }, { city: 'a\tb  ' }],
  ['trailing whitespace', { firstName: 'Ann   ' }, { city: 'line\nbreak ' }],
  ['a word past 998 octets', { firstName: 'x'.repeat(1200) }, { city: 'y'.repeat(1200) }],
];

function broadcast(overrides: Partial<Broadcast> = {}): Broadcast {
  return {
    id: 'brd_1',
    teamId: 'team_1',
    segmentId: 'seg_1',
    topicId: null,
    from: 'News <news@bench.test>',
    replyTo: [],
    subject: 'News for {{{FIRST_NAME}}} in {{{city|somewhere}}}',
    html:
      '<html><body><h1>Hello {{{FIRST_NAME}}}</h1><p>Greetings from {{{city}}}.</p>' +
      '<p>This month we shipped faster sends, a new dashboard and better reports. Read on for the details.</p>'.repeat(
        4,
      ) +
      '</body></html>',
    text: 'Hello {{{FIRST_NAME}}}\n\nGreetings from {{{city}}}.\n\n' + 'This month we shipped faster sends. '.repeat(8),
    previewText: 'Our news',
    ...overrides,
  } as Broadcast;
}

function inputFor(b: Broadcast, n: number, contact: Partial<Contact>, values: Record<string, string>): ComposeInput {
  const c = { id: `con_${n}`, email: `c${n}@dest.test`, firstName: null, lastName: 'Smith', ...contact } as Contact;
  const links = {
    unsubscribeUrl: `https://mailroom.test/u/${'t'.repeat(90)}${n}`,
    preferencesUrl: `https://mailroom.test/p/${n}`,
    unsubscribeMailto: `mailto:unsub-${n}@rp.bench.test?subject=unsubscribe`,
  };
  const postal = { line1: '1 Main St', line2: null, city: 'Springfield', state: null, postal_code: '1', country: 'US' };
  const message = renderForRecipient(
    b,
    c,
    new Map(Object.entries(values)),
    new Map([['city', 'Nowhere']]),
    links,
    postal as never,
  );
  return {
    from: { name: 'News', address: 'news@bench.test' },
    to: [{ name: null, address: c.email }],
    cc: [],
    replyTo: [],
    subject: message.subject,
    html: message.html ?? null,
    text: message.text ?? null,
    headers: message.headers,
    attachments: [],
    messageId: `<id${n}@bench.test>`,
    date: new Date(Date.UTC(2026, 10, 28, 12, 0, n % 60)),
  };
}

/** The message with its multipart boundary (if any) replaced by one token. */
function normalized(mime: Buffer): string {
  const text = mime.toString('latin1');
  const boundary = /boundary="?([^";\r\n]+)"?/.exec(text)?.[1];
  return boundary ? text.split(boundary).join('BOUNDARY') : text;
}

async function full(input: ComposeInput): Promise<Buffer | Error> {
  return composeMime(input).catch((err: Error) => err);
}

for (const [label, overrides] of [
  ['html and text', {}],
  ['html only', { text: null }],
  ['text only', { html: null }],
  ['a subject without merge values, reply-to', { subject: 'Our news', replyTo: ['Desk <desk@bench.test>'] }],
  [
    'bodies naming the unsubscribe link',
    {
      html: '<p>Hi {{{FIRST_NAME}}} <a href="{{{UNSUBSCRIBE_URL}}}">x</a></p>',
      text: 'Hi {{{FIRST_NAME}}} {{{UNSUBSCRIBE_URL}}}',
    },
  ],
] as Array<[string, Partial<Broadcast>]>) {
  t.test(`${label}: each tricky recipient's email is the full composition's bytes`, async (t) => {
    const b = broadcast(overrides);
    const mime = new BroadcastMime();
    // And a template of its own, to see which way each message went (assembled, or the tree).
    const template = MimeTemplate.of(inputFor(b, 99, { firstName: 'Ann' }, { city: 'Paris' }))!;
    for (const [n, [name, contact, values]] of TRICKY.entries()) {
      const input = inputFor(b, n, contact, values);
      const expected = await full(input);
      let direct: Buffer | Error | null;
      try {
        direct = template.render(input);
      } catch (err) {
        direct = err as Error;
      }
      if (direct instanceof Error || expected instanceof Error)
        t.equal(String(direct), String(expected), `${name}: the template alone refuses as the full composition`);
      else t.equal(direct && normalized(direct), normalized(expected), `${name}: the template alone, same bytes`);
      const actual = await mime.compose(input).catch((err: Error) => err);
      if (expected instanceof Error) {
        t.ok(actual instanceof Error, `${name}: refused as the full composition refuses it`);
        if (actual instanceof Error) t.equal(actual.message, expected.message, `${name}: the same refusal`);
        continue;
      }
      if (actual instanceof Error) {
        t.fail(`${name}: ${actual.message}`);
        continue;
      }
      t.equal(normalized(actual), normalized(expected), `${name}: same bytes`);
    }
    t.equal(mime.counts.full, 0, 'every email rendered on the template');
    t.comment(`assembled ${template.counts.assembled}, through the tree ${template.counts.tree}`);
    t.ok(template.counts.assembled >= TRICKY.length - 1, 'the template assembled them (but the refused one)');
  });
}

t.test('a body containing the boundary, or a message of another shape, is composed fully and counted', async (t) => {
  const b = broadcast();
  const first = inputFor(b, 0, { firstName: 'Ann' }, {});
  const template = MimeTemplate.of(first)!;
  t.ok(template.render(first), 'the template renders its own shape');
  const boundary = /boundary="?([^";\r\n]+)"?/.exec(template.render(first)!.toString('latin1'))![1]!;
  const clash = inputFor(b, 1, { firstName: `--${boundary}--` }, {});
  t.equal(template.render(clash), null, 'a body holding the boundary is not rendered on the template');
  t.equal(template.render({ ...first, subject: '' }), null, 'no subject: another shape');
  t.equal(template.render({ ...first, replyTo: [{ name: null, address: 'x@bench.test' }] }), null, 'another reply-to');
  const mime = new BroadcastMime();
  const own = /boundary="?([^";\r\n]+)"?/.exec((await mime.compose(first)).toString('latin1'))![1]!;
  const composed = await mime.compose(inputFor(b, 2, { firstName: `--${own}--` }, {}));
  t.ok(composed.toString('latin1').includes(own), 'the clashing recipient still gets an email');
  t.notOk(composed.toString('latin1').includes(`boundary="${own}"`), '...with a boundary of its own');
  t.same(mime.counts, { template: 1, full: 1 }, 'the full composition is counted');
});
