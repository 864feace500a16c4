import t from 'tap';
import MailComposer from 'nodemailer/lib/mail-composer';
import MimeNode from 'nodemailer/lib/mime-node';
import { tuneMimeNode } from '../../../../core/sending/emails/mime-node-tuning.js';
import { FIXED, generatedCases, SHAPES } from '../../../helpers/mime-cases.js';

/**
 * The tuning of nodemailer's MimeNode must not change a byte: every case is built by nodemailer
 * before the tuning is installed and after, in the same process.
 */
const cases = [...SHAPES, ...generatedCases()];
const build = (mail: (typeof cases)[number][1]) => new MailComposer({ ...mail, ...FIXED }).compile().build();

t.test('messages are the same bytes before and after the tuning', async (t) => {
  const before = [];
  for (const [, mail] of cases) before.push(await build(mail));
  tuneMimeNode();
  tuneMimeNode(); // installing twice is harmless
  for (const [i, [name, mail]] of cases.entries()) {
    const after = await build(mail);
    if (after.equals(before[i]!)) t.pass(`${name}: same bytes`);
    else t.fail(`${name}: changed by the tuning`);
  }
});

t.test('child nodes take their root boundary base instead of drawing their own', async (t) => {
  tuneMimeNode();
  const root = new MimeNode('multipart/mixed', { baseBoundary: 'base-1' });
  t.equal(root.createChild('text/plain').baseBoundary, 'base-1');
  t.equal(root.createChild({ filename: 'a.txt' }).baseBoundary, 'base-1', 'options as the only argument');
  t.equal(root.createChild('text/plain', { baseBoundary: 'own' }).baseBoundary, 'own', 'a given base is kept');
  const nested = root.createChild('multipart/alternative').createChild('text/html');
  t.equal(nested.baseBoundary, 'base-1', 'grandchildren too');
});

t.test('header names normalize as before', async (t) => {
  tuneMimeNode();
  const node = new MimeNode('text/plain');
  node.setHeader('x-smtpapi', 'a');
  node.setHeader('mime-version', '1.0');
  node.setHeader('message-id', '<x@y>');
  node.setHeader('content-features', 'x');
  node.setHeader('x-mailgun-spf', 'x');
  node.setHeader('Fr om:', 'x');
  const keys = (node as unknown as { _headers: Array<{ key: string }> })._headers.map((h) => h.key);
  t.same(keys, ['Content-Type', 'X-SMTPAPI', 'MIME-Version', 'Message-ID', 'Content-features', 'X-Mailgun-SPF', 'From']);
});
