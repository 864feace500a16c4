import t from 'tap';
import { formatSpoolRef, parseSpoolRef, spoolRefRange } from '../../lib/spool/spool-ref-text.js';

t.test('a spool reference as text, and back', async (t) => {
  const ref = { segment: 'seg-1764380000000-4242-0a1b2c3d.spool', offset: 1_234_567, length: 4096 };
  const text = formatSpoolRef(ref);
  t.equal(text, 'spool:seg-1764380000000-4242-0a1b2c3d.spool:1234567:4096');
  t.ok(text.length <= 80, 'fits received_emails.raw_blob (80 characters)');
  t.same(parseSpoolRef(text), ref);
});

t.test('other texts are not references (older values of the column)', async (t) => {
  for (const text of [
    '0196f1d2-7e41-7c3a-9b1e-1a2b3c4d5e6f.eml',
    'spool:seg-1.spool:1',
    'spool:seg-1.spool:1:2:3',
    'spool:../etc/passwd:0:10',
    'spool:seg-1.spool:-1:10',
    '',
  ])
    t.equal(parseSpoolRef(text), null, JSON.stringify(text));
});

t.test("a segment's references sort inside its range, and no other segment's do", async (t) => {
  const [from, to] = spoolRefRange('seg-1-2-aa.spool');
  const inside = formatSpoolRef({ segment: 'seg-1-2-aa.spool', offset: 999_999_999, length: 1 });
  t.ok(from <= inside && inside < to);
  for (const other of ['seg-1-2-aa.spool2', 'seg-1-2-ab.spool', 'seg-1-2-a.spool']) {
    const text = formatSpoolRef({ segment: other, offset: 0, length: 1 });
    t.notOk(from <= text && text < to, other);
  }
});
