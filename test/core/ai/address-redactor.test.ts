import t from 'tap';
import { AddressRedactor } from '../../../core/ai/address-redactor.js';

/** The placeholders of a diagnosis prompt: the email's own addresses, any other, the subject. */
const redactor = new AddressRedactor({
  sender: 'Hello@Shop.example',
  recipients: ['jane.doe@example.net', 'B@example.org', 'jane.doe@example.net', 'ab.c@example.net', 'zed@example.com'],
  subject: 'Your order 4417 has shipped',
});

t.test('the email’s recipients and sender become stable placeholders, whatever the case', async (t) => {
  t.equal(redactor.recipient('JANE.DOE@example.net'), '<recipient-1>');
  t.equal(redactor.recipient('b@example.org'), '<recipient-2>', 'duplicates counted once');
  t.equal(redactor.recipient('ab.c@example.net'), '<recipient-3>');
  t.equal(redactor.recipient('stranger@example.net'), '<address>');
  t.equal(
    redactor.redact('550 5.1.1 <Jane.Doe@Example.net>: rejected; from hello@shop.example via b@example.org'),
    '550 5.1.1 <<recipient-1>>: rejected; from <sender> via <recipient-2>',
  );
});

t.test('any other address, plain or URL-encoded, becomes <address>', async (t) => {
  t.equal(redactor.redact('MAIL FROM:<bounces+123@shop.example>'), 'MAIL FROM:<<address>>');
  t.equal(
    redactor.redact('rua=mailto:dmarc-reports@shop.example; ruf=mailto:x@y.example'),
    'rua=mailto:<address>; ruf=mailto:<address>',
  );
  t.equal(
    redactor.redact('see https://x.example/?rcpt=someone%40else.example&a=1'),
    'see https://x.example/?rcpt=<address>&a=1',
  );
  t.equal(redactor.redact('user "quoted"@example.com and a@[192.0.2.1]'), 'user <address> and <address>');
  t.equal(redactor.redact('jane.doe%40example.net'), '<recipient-1>', 'a recipient URL-encoded keeps its placeholder');
  t.notMatch(redactor.redact('a@b, c.d+e@f-g.example, "x y"@z.example'), /@/);
});

t.test('a recipient’s distinctive local part quoted alone; ordinary words are left', async (t) => {
  t.equal(
    redactor.redact('User jane.doe unknown in virtual mailbox table'),
    'User <recipient-1> unknown in virtual mailbox table',
  );
  t.equal(redactor.redact('mailbox ab.c is full'), 'mailbox <recipient-3> is full', 'short, but with punctuation');
  t.equal(redactor.redact('Zed said b is fine'), 'Zed said b is fine', 'one- and three-letter words stay');
  t.equal(redactor.redact('jane.doeX and xjane.doe'), 'jane.doeX and xjane.doe', 'only the whole token');
});

t.test('the subject becomes <subject>', async (t) => {
  t.equal(redactor.redact('Subject: YOUR ORDER 4417 has shipped'), 'Subject: <subject>');
  t.equal(
    new AddressRedactor({ sender: null, recipients: [], subject: 'Hi' }).redact('Hi there'),
    'Hi there',
    'too short to match safely',
  );
  t.equal(redactor.redact(null), null);
});

t.test('the answer for the person who asked: placeholders back to the email’s own addresses', async (t) => {
  t.equal(
    redactor.restore('<recipient-2> bounced; <sender> should remove it. <recipient-9> and <address> stay.'),
    'b@example.org bounced; Hello@Shop.example should remove it. <recipient-9> and <address> stay.',
  );
  t.equal(redactor.restore(redactor.redact('mail to jane.doe@example.net')), 'mail to jane.doe@example.net');
});
