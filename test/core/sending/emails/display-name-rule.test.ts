import t from 'tap';
import { assertHonestDisplayNames } from '../../../../core/sending/emails/display-name-rule.js';
import { addressesShownIn, decodeEncodedWords } from '../../../../core/shared/addresses/display-name.js';
import { parseMailbox } from '../../../../core/shared/addresses/mailbox.js';
import { MisleadingDisplayNameError } from '../../../../lib/errors.js';

/** The display-name rule (issue 31, item 9) on its own: what a name shows, and the refusal. */

t.test('encoded-words decode as a mail client shows them; garbage never throws', async (t) => {
  t.equal(decodeEncodedWords('=?UTF-8?B?Q0VP?= =?utf-8?q?_of=40?= bank'), 'CEO of@ bank');
  t.equal(decodeEncodedWords('=?iso-8859-1?q?Zo=EB?='), 'Zoë');
  t.equal(decodeEncodedWords('=?utf-8*en?q?ceo=40x.example?='), 'ceo@x.example', 'RFC 2231 language suffix');
  t.equal(
    decodeEncodedWords('=?no-such-charset?q?ceo=40x.example?='),
    'ceo@x.example',
    'unknown charset: bytes as Latin-1',
  );
  t.equal(decodeEncodedWords('=?utf-8?q?=ZZ=4?='), '=ZZ=4', 'a malformed escape is kept');
  t.equal(decodeEncodedWords('=?utf-8?b?!!!?='), '', 'invalid base64 decodes to nothing');
  t.equal(decodeEncodedWords('plain =? text ?='), 'plain =? text ?=');
});

t.test('the addresses a name shows', async (t) => {
  const inner = Buffer.from('=?utf-8?q?ceo=40bank.example?=').toString('base64');
  const cases: Array<[string, string[]]> = [
    ['Acme', []],
    ['Acme @ Home', []],
    ['@acme', []],
    ['team@acme', []],
    ["'ceo@bank.example'", ['ceo@bank.example']],
    ['ceo@bank.example.', ['ceo@bank.example']],
    ['CEO@Bank.Example', ['ceo@bank.example']],
    ['a@x.example and b@y.example', ['a@x.example', 'b@y.example']],
    ['ceo\uFF20bank\uFF0Eexample', ['ceo@bank.example']],
    ['ceo\uFE6Bbank\u3002example', ['ceo@bank.example']],
    ['ceo\u200B@bank.example', ['ceo@bank.example']],
    [`=?utf-8?b?${inner}?=`, ['ceo@bank.example']],
  ];
  for (const [name, shown] of cases) t.same(addressesShownIn(name), shown, JSON.stringify(name));
});

t.test('bounded: the longest names are read quickly', async (t) => {
  for (const name of [
    'x'.repeat(256),
    '\u3300'.repeat(256),
    `${'a.'.repeat(127)}@`,
    '=?utf-8?q?' + '=40'.repeat(80) + '?=',
  ]) {
    const started = performance.now();
    addressesShownIn(name);
    t.ok(performance.now() - started < 1000, `${name.slice(0, 12)}… read`);
  }
});

t.test('the refusal lists every field whose name shows another address', async (t) => {
  const from = parseMailbox('"ceo@bank.example" <hello@ours.test>')!;
  const fine = parseMailbox('Support <help@ours.test>')!;
  const spoof = parseMailbox('"help@bank.example" <help@ours.test>')!;
  t.doesNotThrow(() => assertHonestDisplayNames(parseMailbox('"HELLO@ours.test" <hello@ours.test>')!, [fine]));
  try {
    assertHonestDisplayNames(from, [fine, spoof]);
    t.fail('refused');
  } catch (err) {
    t.ok(err instanceof MisleadingDisplayNameError);
    const refusal = err as MisleadingDisplayNameError;
    t.equal(refusal.statusCode, 422);
    t.equal(refusal.errorName, 'validation_error');
    t.match(refusal.message, /^from: the display name shows ceo@bank\.example.* \(and 1 more\)$/);
    t.same(
      refusal.errors?.map((e) => e.path),
      ['from', 'reply_to.1'],
    );
  }
});
