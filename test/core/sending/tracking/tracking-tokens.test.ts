import t from 'tap';
import { TrackingTokens } from '../../../../core/sending/tracking/tracking-tokens.js';
import { newId } from '../../../../lib/ids.js';

const tokens = new TrackingTokens('k'.repeat(32));
const emailId = newId();

t.test('open and click tokens carry the email id, and the link for clicks', async (t) => {
  const open = tokens.open(emailId);
  t.match(open, /^[A-Za-z0-9_-]+$/, 'base64url');
  t.equal(open.length, 44, 'compact: kind, id and a 128-bit MAC');
  t.same(tokens.verify(open), { kind: 'open', emailId });
  const url = 'https://shop.example/sale?a=1&b=2#top';
  const click = tokens.click(emailId, url);
  t.same(tokens.verify(click), { kind: 'click', emailId, url });
  const unicode = 'https://bücher.example/straße?q=ü';
  t.same(tokens.verify(tokens.click(emailId, unicode)), { kind: 'click', emailId, url: unicode });
});

t.test('a token cannot be altered, forged with another key, or made to carry another link', async (t) => {
  const click = tokens.click(emailId, 'https://good.example/');
  const bytes = Buffer.from(click, 'base64url');
  // The same MAC over a payload whose link points elsewhere.
  const swapped = Buffer.concat([
    bytes.subarray(0, 17),
    Buffer.from('https://evil.example/'),
    bytes.subarray(bytes.length - 16),
  ]);
  t.equal(tokens.verify(swapped.toString('base64url')), null, 'another link under the same MAC');
  for (let i = 0; i < bytes.length; i++) {
    const flipped = Buffer.from(bytes);
    flipped[i]! ^= 0x01;
    if (tokens.verify(flipped.toString('base64url')) !== null) t.fail(`flipping byte ${i} was accepted`);
  }
  t.equal(tokens.verify(click.slice(0, -2)), null, 'truncated');
  t.equal(tokens.verify(`${click}A`), null, 'extended');
  t.equal(tokens.verify(`${click}=`), null, 'not base64url');
  t.equal(tokens.verify('a/b+c'), null, 'not base64url');
  t.equal(tokens.verify(''), null, 'empty');
  t.equal(new TrackingTokens('x'.repeat(32)).verify(click), null, 'signed under another master key');
  // Swapping the kind byte without the key: an open token cannot become a click token.
  const open = Buffer.from(tokens.open(emailId), 'base64url');
  open[0] = 0x63;
  t.equal(tokens.verify(open.toString('base64url')), null);
});

t.test('only a UUID can be sealed', async (t) => {
  t.throws(() => tokens.open('not-an-id'));
});
