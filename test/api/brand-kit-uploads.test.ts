import t from 'tap';
import { errorShape, request } from '../helpers/http.js';
import { png as pngOf, pngChunk } from '../helpers/images.js';
import { startTestApp } from '../helpers/test-app.js';

const app = await startTestApp();
t.teardown(() => app.close());
const { token } = await app.createTeam('Brand');

/** A PNG with a tEXt chunk that must not survive the upload. */
const png = (width: number, height: number) =>
  pngOf(width, height, [pngChunk('tEXt', Buffer.from('Comment\0Author: someone private', 'latin1'))]);

const upload = (content: string) =>
  request(app.url, '/team/brand-kit/uploads', { method: 'POST', token, body: { content } });

t.test('a PNG is stored without its metadata, described, and served back at its URL', async (t) => {
  const file = png(3, 2);
  const res = await upload(file.toString('base64'));
  t.equal(res.status, 201);
  t.match(res.body, {
    object: 'brand_kit_upload',
    content_type: 'image/png',
    width: 3,
    height: 2,
    sha256: /^[0-9a-f]{64}$/,
    url: /\/brand-assets\/[0-9a-f]{64}\.png$/,
  });
  t.ok(res.body.bytes < file.length, 'metadata stripped: fewer bytes');
  const served = await fetch(res.body.url, { headers: { 'user-agent': 'mail-client' } });
  t.equal(served.status, 200);
  t.equal(served.headers.get('content-type'), 'image/png');
  const bytes = Buffer.from(await served.arrayBuffer());
  t.equal(bytes.length, res.body.bytes);
  t.notOk(bytes.includes(Buffer.from('someone private')), 'the served file has no tEXt metadata');
  t.equal(served.headers.get('x-content-type-options'), 'nosniff');

  const again = await upload(file.toString('base64'));
  t.equal(again.body.url, res.body.url, 'the same file gives the same URL');
  const team = await request(app.url, '/team', { token });
  t.equal(team.body.brand_kit.logo_url, null, 'the upload does not change the brand kit');
});

t.test('the type is read from the bytes, not claimed', async (t) => {
  const gif = Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1');
  const body = errorShape(t, await upload(gif.toString('base64')), 400, 'validation_error');
  t.ok(body.errors?.length, 'one entry per problem');
  errorShape(t, await upload(Buffer.from('just text').toString('base64')), 400, 'validation_error');
  errorShape(t, await upload('***not base64***'), 400, 'validation_error');
  errorShape(
    t,
    await request(app.url, '/team/brand-kit/uploads', { method: 'POST', token, body: {} }),
    422,
    'missing_required_field',
  );
});

t.test('limits: 4096 pixels per side', async (t) => {
  errorShape(t, await upload(png(4097, 1).toString('base64')), 400, 'validation_error');
});

t.test('SVG: stored as sent, or refused with one reason per problem', async (t) => {
  const clean =
    '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="20"><rect width="10" height="20" fill="#123456"/></svg>';
  const ok = await upload(Buffer.from(clean).toString('base64'));
  t.equal(ok.status, 201);
  t.match(ok.body, { content_type: 'image/svg+xml', width: 10, height: 20 });
  const served = await fetch(ok.body.url);
  t.equal(await served.text(), clean, 'byte for byte');
  t.match(served.headers.get('content-security-policy'), /default-src 'none'/);

  const bad =
    '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script><a href="https://evil.example"><text>x</text></a><animate attributeName="x"/></svg>';
  const refused = errorShape(t, await upload(Buffer.from(bad).toString('base64')), 400, 'validation_error');
  t.ok((refused.errors?.length ?? 0) >= 3, `script, link and animation each named (${refused.errors?.length})`);
});

t.test('a team may upload at most 100 different files', async (t) => {
  const team = await app.createTeam('Many files');
  for (let i = 1; i <= 100; i++) {
    const res = await request(app.url, '/team/brand-kit/uploads', {
      method: 'POST',
      token: team.token,
      body: { content: png(i, 1).toString('base64') },
    });
    if (res.status !== 201) t.fail(`upload ${i} refused: ${res.text}`);
  }
  errorShape(
    t,
    await request(app.url, '/team/brand-kit/uploads', {
      method: 'POST',
      token: team.token,
      body: { content: png(101, 1).toString('base64') },
    }),
    422,
    'validation_error',
  );
  const repeat = await request(app.url, '/team/brand-kit/uploads', {
    method: 'POST',
    token: team.token,
    body: { content: png(1, 1).toString('base64') },
  });
  t.equal(repeat.status, 201, 'a file already uploaded is not a new one');
});

t.test('unknown files are 404', async (t) => {
  errorShape(t, await request(app.url, `/brand-assets/${'0'.repeat(64)}.png`), 404, 'not_found');
  errorShape(t, await request(app.url, '/brand-assets/..%2Fmailroom.sqlite'), 404, 'not_found');
});
