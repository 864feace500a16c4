import { randomBytes } from 'node:crypto';
import t from 'tap';
import { base32Decode, base32Encode } from '../../lib/text/base32.js';

t.test('RFC 4648 test vectors, lower case and unpadded', async (t) => {
  const vectors: Array<[string, string]> = [
    ['', ''],
    ['f', 'my'],
    ['fo', 'mzxq'],
    ['foo', 'mzxw6'],
    ['foob', 'mzxw6yq'],
    ['fooba', 'mzxw6ytb'],
    ['foobar', 'mzxw6ytboi'],
  ];
  for (const [plain, encoded] of vectors) {
    t.equal(base32Encode(Buffer.from(plain)), encoded, `encode ${JSON.stringify(plain)}`);
    t.equal(base32Decode(encoded)!.toString(), plain, `decode ${encoded}`);
    t.equal(base32Decode(encoded.toUpperCase())!.toString(), plain, `decode ${encoded.toUpperCase()}`);
  }
});

t.test('round trip of random bytes; a character outside the alphabet is null', async (t) => {
  for (let length = 0; length < 40; length++) {
    const bytes = randomBytes(length);
    t.same(base32Decode(base32Encode(bytes)), bytes);
  }
  t.equal(base32Decode('mzxw1'), null, '1 is not base32');
  t.equal(base32Decode('mzx='), null, 'padding is not expected');
});
