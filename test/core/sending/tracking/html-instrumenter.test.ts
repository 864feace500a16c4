import t from 'tap';
import { decodeCharacterReferences, instrumentHtml } from '../../../../core/sending/tracking/html-instrumenter.js';

const BASE = 'https://links.acme.example';

/** Click tokens are `L<n>`, so the expected output is easy to write; `seen` lists the links signed. */
function clicks() {
  const seen: string[] = [];
  return { seen, clickToken: (url: string) => `L${seen.push(url) - 1}` };
}

t.test('http and https links are rewritten, in any quoting, and the rest is kept byte for byte', async (t) => {
  const { seen, clickToken } = clicks();
  const html = [
    '<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>',
    '<p>Hi <b>there</b></p>',
    '<a href="https://shop.example/sale">double</a>',
    "<a class='x' href='http://shop.example/plain'>single</a>",
    '<A HREF=https://shop.example/unquoted/>unquoted</A>',
    '<a\n  target="_blank"\n  href = "https://shop.example/spaced" >spaced</a>',
    '<a href="https://shop.example/q?a=1&amp;b=2&#38;c=3&#x26;d=4">entities</a>',
    '<a href="  https://shop.example/trimmed  ">trimmed</a>',
    '</body></html>',
  ].join('');
  const out = instrumentHtml(html, { base: BASE, clickToken });
  t.same(
    seen,
    [
      'https://shop.example/sale',
      'http://shop.example/plain',
      'https://shop.example/unquoted/',
      'https://shop.example/spaced',
      'https://shop.example/q?a=1&b=2&c=3&d=4',
      'https://shop.example/trimmed',
    ],
    'the links signed are the URLs the browser would follow',
  );
  t.equal(
    out,
    [
      '<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>',
      '<p>Hi <b>there</b></p>',
      `<a href="${BASE}/c/L0">double</a>`,
      `<a class='x' href='${BASE}/c/L1'>single</a>`,
      `<A HREF=${BASE}/c/L2>unquoted</A>`,
      `<a\n  target="_blank"\n  href = "${BASE}/c/L3" >spaced</a>`,
      `<a href="${BASE}/c/L4">entities</a>`,
      `<a href="${BASE}/c/L5">trimmed</a>`,
      '</body></html>',
    ].join(''),
  );
});

t.test('mailto, tel, anchors, relative links and opted-out links are left alone', async (t) => {
  const { seen, clickToken } = clicks();
  const html = [
    '<a href="mailto:help@acme.example">mail</a>',
    '<a href="tel:+15550100">call</a>',
    '<a href="#top">top</a>',
    '<a href="/relative">relative</a>',
    '<a href="javascript:alert(1)">js</a>',
    '<a href="https://keep.example/a" data-no-track>opt-out</a>',
    '<a clicktracking=off href="https://keep.example/b">opt-out</a>',
    '<a clicktracking="OFF" href="https://keep.example/c">opt-out</a>',
    '<a name="anchor">no href</a>',
    '<a href>empty</a>',
    '<a href="https://">no host</a>',
    '<abbr href="https://keep.example/d">not a link</abbr>',
    '<area href="https://keep.example/e">',
  ].join('');
  t.equal(instrumentHtml(html, { base: BASE, clickToken }), html);
  t.same(seen, []);
});

t.test('links inside comments, raw-text elements and attribute values are not links', async (t) => {
  const { seen, clickToken } = clicks();
  const html = [
    '<!-- <a href="https://keep.example/comment">x</a> -->',
    '<!--[if mso]><a href="https://keep.example/mso">x</a><![endif]-->',
    '<style>a[href="x"] { color: red } /* <a href="https://keep.example/style"> */</style>',
    '<script>document.write(\'<a href="https://keep.example/script">\')</script>',
    '<title><a href="https://keep.example/title"></title>',
    '<img alt=\'<a href="https://keep.example/attr">\' src="x.png">',
    '<a title="a > b" href="https://track.example/after-gt">yes</a>',
    '<a href="https://track.example/first" href="https://keep.example/second">dup</a>',
  ].join('');
  const out = instrumentHtml(html, { base: BASE, clickToken });
  t.same(seen, ['https://track.example/after-gt', 'https://track.example/first']);
  t.notMatch(out, /track\.example/);
  t.match(out, 'href="https://keep.example/second"', 'only the first href counts, as in browsers');
  t.equal(
    out
      .replace(`${BASE}/c/L0`, 'https://track.example/after-gt')
      .replace(`${BASE}/c/L1`, 'https://track.example/first'),
    html,
  );
});

t.test('the pixel goes before </body>, or at the end without one', async (t) => {
  const pixel = `<img src="${BASE}/o/OPEN" width="1" height="1" alt="" style="display:none">`;
  t.equal(
    instrumentHtml('<html><body><p>x</p></BODY></html>', { base: BASE, openToken: 'OPEN' }),
    `<html><body><p>x</p>${pixel}</BODY></html>`,
  );
  t.equal(instrumentHtml('<p>no body</p>', { base: BASE, openToken: 'OPEN' }), `<p>no body</p>${pixel}`);
  t.equal(
    instrumentHtml('<body>x</body><!-- </body> -->', { base: BASE, openToken: 'OPEN' }),
    `<body>x${pixel}</body><!-- </body> -->`,
    'a </body> in a comment is not the end',
  );
  t.equal(
    instrumentHtml('<a href="https://x.example/">x</a>', { base: BASE, openToken: 'OPEN' }),
    `<a href="https://x.example/">x</a>${pixel}`,
    'open tracking alone leaves links',
  );
  t.equal(
    instrumentHtml('<p>x</p>', { base: BASE, clickToken: () => 'T' }),
    '<p>x</p>',
    'click tracking alone adds no pixel',
  );
});

t.test('malformed HTML ends without error and without losing text', async (t) => {
  const { clickToken } = clicks();
  for (const html of [
    '<a href="https://x.example/',
    '<a href=',
    '<a',
    '<',
    'a < b > c',
    '<!-- open',
    '<script>never closed <a href="https://x.example/">',
    '</',
    '<a href="https://x.example/">ok</a><style>',
  ]) {
    const out = instrumentHtml(html, { base: BASE, clickToken });
    t.type(out, 'string', JSON.stringify(html));
  }
  t.equal(instrumentHtml('a < b and c > d', { base: BASE, clickToken }), 'a < b and c > d');
});

t.test('character references in URLs', async (t) => {
  t.equal(decodeCharacterReferences('a=1&amp;b=2&#38;c&#x26;d&lt;&gt;&quot;'), 'a=1&b=2&c&d<>"');
  t.equal(
    decodeCharacterReferences('a=1&copy=2&unknown;'),
    'a=1&copy=2&unknown;',
    'unknown or unterminated names stay',
  );
  t.equal(decodeCharacterReferences('&#0;&#xD800;'), '\ufffd\ufffd');
});
