import t from 'tap';
import { hasOnlyCrlf, markCrlf, toCrlf } from '../../lib/mail/line-endings.js';

t.test('toCrlf turns a bare CR and a bare LF into CRLF, as the wire would', async (t) => {
  const cases: Array<[string, string]> = [
    ['a\r\nb\r\n', 'a\r\nb\r\n'],
    ['a\nb\n', 'a\r\nb\r\n'],
    ['a\rb\r', 'a\r\nb\r\n'],
    ['a\r\r\nb', 'a\r\n\r\nb'],
    ['\n\r', '\r\n\r\n'],
    ['\xe9\xa0 8bit', '\xe9\xa0 8bit'],
  ];
  for (const [input, expected] of cases) {
    const out = toCrlf(Buffer.from(input, 'latin1'));
    t.equal(out.toString('latin1'), expected, JSON.stringify(input));
    t.ok(hasOnlyCrlf(out), `${JSON.stringify(input)}: CRLF only`);
  }
  const clean = Buffer.from('x\r\ny\r\n');
  t.equal(toCrlf(clean), clean, 'a CRLF message is returned as it is, not copied');
});

t.test('a buffer marked CRLF-only is not scanned again', async (t) => {
  // Marking is a promise by the caller; a lie shows that the check trusts it.
  const marked = markCrlf(Buffer.from('bare\nLF'));
  t.ok(hasOnlyCrlf(marked), 'trusted');
  t.notOk(hasOnlyCrlf(Buffer.from('bare\nLF')), 'an equal buffer that was not marked is scanned');
});
