import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import t from 'tap';
import { processBrandAsset } from '../../../../core/platform/brand-assets/brand-asset.processor.js';
import { png, pngChunk } from '../../../helpers/images.js';

const SECRET = 'GPS 51.5N private-author';

function segment(marker: number, data: Buffer): Buffer {
  const head = Buffer.from([0xff, marker, 0, 0]);
  head.writeUInt16BE(data.length + 2, 2);
  return Buffer.concat([head, data]);
}

function jpeg(width: number, height: number): Buffer {
  const sof = Buffer.from([8, 0, 0, 0, 0, 1, 1, 0x11, 0]);
  sof.writeUInt16BE(height, 1);
  sof.writeUInt16BE(width, 3);
  return Buffer.concat([
    Buffer.from([0xff, 0xd8]),
    segment(0xe0, Buffer.from('JFIF\0\x01\x01\0\0\x01\0\x01\0\0', 'latin1')),
    segment(0xe1, Buffer.from(`Exif\0\0${SECRET}`, 'latin1')),
    segment(0xe1, Buffer.from(`http://ns.adobe.com/xap/1.0/\0<x:xmpmeta>${SECRET}</x:xmpmeta>`, 'latin1')),
    segment(0xed, Buffer.from(`Photoshop 3.0\0${SECRET}`, 'latin1')),
    segment(0xfe, Buffer.from(`comment ${SECRET}`, 'latin1')),
    segment(0xdb, Buffer.concat([Buffer.from([0]), Buffer.alloc(64, 1)])),
    segment(0xc0, sof),
    segment(0xc4, Buffer.concat([Buffer.from([0]), Buffer.alloc(16, 0), Buffer.alloc(0)])),
    segment(0xda, Buffer.from([1, 1, 0, 0, 0x3f, 0])),
    Buffer.from([0x12, 0x34, 0xff, 0x00, 0x56, 0xff, 0xd0, 0x78]),
    Buffer.from([0xff, 0xd9]),
    Buffer.from(`trailing ${SECRET}`, 'latin1'),
  ]);
}

const svg = (body: string, attrs = 'width="32" height="16"') =>
  Buffer.from(
    `<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" ${attrs}>${body}</svg>`,
  );

t.test('PNG: text, XMP, EXIF and time chunks are stripped; rendering chunks kept', async (t) => {
  const input = png(20, 10, [
    pngChunk('tEXt', Buffer.from(`Author\0${SECRET}`, 'latin1')),
    pngChunk('zTXt', Buffer.concat([Buffer.from('Comment\0\0', 'latin1'), deflateSync(SECRET)])),
    pngChunk('iTXt', Buffer.from(`XML:com.adobe.xmp\0\0\0\0\0<x>${SECRET}</x>`, 'latin1')),
    pngChunk('eXIf', Buffer.from(`MM\0*${SECRET}`, 'latin1')),
    pngChunk('tIME', Buffer.from([7, 234, 11, 22, 1, 2, 3])),
    pngChunk('prVt', Buffer.from(SECRET, 'latin1')),
  ]);
  const result = processBrandAsset(input);
  t.equal(result.ok, true);
  if (!result.ok) return;
  const { asset } = result;
  t.match(asset, { contentType: 'image/png', extension: 'png', width: 20, height: 10 });
  t.notOk(asset.bytes.includes(Buffer.from(SECRET)), 'no secret left');
  for (const type of ['tEXt', 'zTXt', 'iTXt', 'eXIf', 'tIME', 'prVt'])
    t.notOk(asset.bytes.includes(Buffer.from(type)), `${type} gone`);
  t.ok(asset.bytes.includes(Buffer.from('gAMA')), 'gAMA kept');
  t.equal(asset.sha256, createHash('sha256').update(asset.bytes).digest('hex'));
  const again = processBrandAsset(asset.bytes);
  t.ok(
    again.ok && again.asset.bytes.equals(asset.bytes),
    'the output is itself a valid PNG, unchanged by a second pass',
  );
});

t.test('PNG: size, dimensions and structure', async (t) => {
  t.match(processBrandAsset(png(4097, 1)), { ok: false, problems: [{ path: 'content', message: /4096 pixels/ }] });
  t.match(processBrandAsset(png(1, 4097)), { ok: false, problems: [{ message: /4096 pixels/ }] });
  t.equal(processBrandAsset(png(4096, 1)).ok, true);
  const big = png(8, 8, [pngChunk('tEXt', Buffer.alloc(300 * 1024, 0x41))]);
  t.match(processBrandAsset(big), { ok: false, problems: [{ message: /larger than 256 KB/ }] });
  const good = png(4, 4);
  t.match(
    processBrandAsset(good.subarray(0, good.length - 6)),
    { ok: false, problems: [{ message: 'file is not a valid PNG image' }] },
    'truncated',
  );
  const corrupt = Buffer.from(good);
  corrupt[40] = corrupt[40]! ^ 0xff;
  t.match(processBrandAsset(corrupt), { ok: false }, 'CRC mismatch');
});

t.test('JPEG: Exif, XMP, IPTC, comments and trailing data are stripped; SOF gives the size', async (t) => {
  const result = processBrandAsset(jpeg(640, 480));
  t.equal(result.ok, true);
  if (!result.ok) return;
  t.match(result.asset, { contentType: 'image/jpeg', extension: 'jpg', width: 640, height: 480 });
  t.notOk(result.asset.bytes.includes(Buffer.from(SECRET)), 'no secret left');
  t.ok(result.asset.bytes.includes(Buffer.from('JFIF')), 'JFIF kept');
  t.ok(
    result.asset.bytes.includes(Buffer.from([0x12, 0x34, 0xff, 0x00, 0x56, 0xff, 0xd0, 0x78])),
    'scan data copied as is',
  );
  t.same([...result.asset.bytes.subarray(-2)], [0xff, 0xd9], 'ends at EOI');
  t.match(processBrandAsset(jpeg(5000, 10)), { ok: false, problems: [{ message: /4096 pixels/ }] });
  const whole = jpeg(10, 10);
  for (const cut of [3, 10, 60, 200]) {
    const res = processBrandAsset(whole.subarray(0, cut));
    t.equal(res.ok, false, `cut at ${cut} bytes is refused, not thrown`);
  }
});

t.test('the type comes from the bytes', async (t) => {
  for (const [name, bytes] of [
    ['GIF', Buffer.from('GIF89a\x01\x00\x01\x00', 'latin1')],
    ['WebP', Buffer.from('RIFF\0\0\0\0WEBPVP8 ', 'latin1')],
    ['PDF', Buffer.from('%PDF-1.7\n')],
    ['HTML', Buffer.from('<html><body>hi</body></html>')],
    ['empty', Buffer.alloc(0)],
    ['random', Buffer.from(Array.from({ length: 512 }, (_, i) => (i * 7919) % 256))],
  ] as const) {
    t.match(
      processBrandAsset(bytes),
      { ok: false, problems: [{ path: 'content', message: /only PNG, JPEG and SVG/ }] },
      name,
    );
  }
});

t.test('SVG: a clean file is stored as sent, sized from attributes or viewBox', async (t) => {
  const clean = svg(
    '<defs><linearGradient id="g"><stop offset="0" stop-color="#fff"/></linearGradient></defs><rect fill="url(#g)" width="32" height="16"/><use xlink:href="#g"/><style>rect { fill: #123456 }</style>',
  );
  const result = processBrandAsset(clean);
  t.equal(result.ok, true, result.ok ? 'accepted' : JSON.stringify(result.problems));
  if (result.ok) {
    t.ok(result.asset.bytes.equals(clean), 'byte-identical');
    t.match(result.asset, { contentType: 'image/svg+xml', extension: 'svg', width: 32, height: 16 });
  }
  const boxed = processBrandAsset(svg('<rect width="1" height="1"/>', 'viewBox="0 0 120 60"'));
  t.match(boxed, { ok: true, asset: { width: 120, height: 60 } });
  const unknown = processBrandAsset(svg('<rect width="1" height="1"/>', 'width="50%"'));
  t.match(unknown, { ok: true, asset: { width: null, height: null } });
});

t.test('SVG: each problem is named once', async (t) => {
  const cases: Array<[string, string, RegExp]> = [
    ['script element', '<script>alert(1)</script>', /scripts/],
    ['prefixed script', '<svg:script xmlns:svg="http://www.w3.org/2000/svg">x</svg:script>', /scripts/],
    ['event handler', '<rect onclick="x()" width="1" height="1"/>', /scripts/],
    ['javascript URL', '<a href="java&#x09;script:x"><text>x</text></a>', /links/],
    ['link', '<a href="https://example.com"><text>x</text></a>', /links/],
    ['animate', '<rect width="1" height="1"><animate attributeName="x" to="5"/></rect>', /animation/],
    ['set', '<set attributeName="x" to="5"/>', /animation/],
    ['CSS animation', '<style>@keyframes spin { to { opacity: 0 } } rect { animation: spin 1s }</style>', /animation/],
    ['external image', '<image href="https://tracker.example/p.png" width="1" height="1"/>', /external/],
    ['external use', '<use xlink:href="other.svg#icon"/>', /external/],
    [
      'foreignObject',
      '<foreignObject width="1" height="1"><div xmlns="http://www.w3.org/1999/xhtml">x</div></foreignObject>',
      /external/,
    ],
    ['css import', '<style>@import url(https://evil.example/x.css);</style>', /external/],
    ['css url', '<rect style="fill: url(https://evil.example/x)" width="1" height="1"/>', /external/],
    ['attribute url', '<rect fill="url(https://evil.example/#g)" width="1" height="1"/>', /external/],
    ['data URI', '<image href="data:image/png;base64,AAAA" width="1" height="1"/>', /./],
    ['stylesheet instruction', '<?xml-stylesheet href="https://evil.example/x.css"?>', /external/],
  ];
  for (const [name, body, message] of cases) {
    const result = processBrandAsset(svg(body));
    t.equal(result.ok, false, `${name}: refused`);
    if (!result.ok)
      t.ok(
        result.problems.some((p) => message.test(p.message)),
        `${name}: ${result.problems.map((p) => p.message).join(' | ')}`,
      );
  }
  const many = processBrandAsset(
    svg(
      '<script>1</script><script>2</script><a href="https://x.example"><text>x</text></a><animate attributeName="x"/>',
    ),
  );
  t.equal(many.ok, false);
  if (!many.ok) t.equal(many.problems.length, 3, 'script, link, animation: one each');
  const doctype = processBrandAsset(
    Buffer.from(
      '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]><svg xmlns="http://www.w3.org/2000/svg">&x;</svg>',
    ),
  );
  t.match(doctype, { ok: false, problems: [{ message: /DOCTYPE and ENTITY/ }] });
});

t.test('SVG: malformed, oversize and non-UTF-8 input is refused, never thrown', async (t) => {
  for (const bad of [
    '<svg><g></svg>',
    '<svg xmlns="x"><rect width=1/></svg>',
    '<svg></svg><svg></svg>',
    '<svg><rect></g></svg>',
    '<svg>text after</svg>trailing',
    '<svg <rect/>',
  ]) {
    t.match(
      processBrandAsset(Buffer.from(bad)),
      { ok: false, problems: [{ message: /not a valid SVG|only PNG/ }] },
      bad,
    );
  }
  t.match(processBrandAsset(svg(`<desc>${'x'.repeat(33 * 1024)}</desc>`)), {
    ok: false,
    problems: [{ message: /larger than 32 KB/ }],
  });
  t.match(
    processBrandAsset(
      Buffer.concat([
        Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><text>'),
        Buffer.from([0xc3, 0x28]),
        Buffer.from('</text></svg>'),
      ]),
    ),
    { ok: false },
  );
});
