import t from 'tap';
import MailComposer from 'nodemailer/lib/mail-composer';
import { renderMimeTree } from '../../../../core/sending/emails/mime-render.js';
import { FIXED, generatedCases, SHAPES } from '../../../helpers/mime-cases.js';

/**
 * The synchronous renderer must give exactly the bytes of nodemailer's own build() for every
 * message shape the send path composes. Each case is compiled twice with the same options (same
 * boundary base, date and message id) and both outputs are compared byte for byte.
 */
for (const [label, cases] of [
  ['the send path shapes', SHAPES],
  ['generated bodies, small and past the encoders slice sizes', generatedCases()],
] as const) {
  t.test(label, async (t) => {
    for (const [name, mail] of cases) {
      const expected = await new MailComposer({ ...mail, ...FIXED }).compile().build();
      const actual = renderMimeTree(new MailComposer({ ...mail, ...FIXED }).compile());
      if (!actual) t.fail(`${name}: not rendered`);
      else if (!actual.equals(expected))
        t.fail(
          `${name}: differs from build()\n--- build()\n${expected.toString('latin1').slice(0, 3000)}\n--- rendered\n${actual.toString('latin1').slice(0, 3000)}`,
        );
      else t.pass(`${name}: same bytes`);
    }
  });
}

t.test('trees it does not cover are left to build()', async (t) => {
  const raw = new MailComposer({ ...FIXED, raw: 'Subject: raw\r\n\r\nbody\r\n' }).compile();
  t.equal(renderMimeTree(raw), null, 'raw message');
  const newline = new MailComposer({
    ...FIXED,
    newline: 'unix',
    from: 'a@example.com',
    to: 'b@example.net',
    text: 'x',
  }).compile();
  t.equal(renderMimeTree(newline), null, 'newline conversion');
  const file = new MailComposer({
    ...FIXED,
    from: 'a@example.com',
    to: 'b@example.net',
    text: 'x',
    attachments: [{ path: '/etc/hostname' }],
  }).compile();
  t.equal(renderMimeTree(file), null, 'content from a path');
});
