import t from 'tap';
import { mxMatches, parseStsPolicy, parseStsRecord } from '../../mta/delivery/tls-policy/mta-sts-policy.js';

/** RFC 8461 3.1 (TXT record) and 3.2 (policy file), and 4.1 (MX matching). */
const policy = (...lines: string[]) => lines.join('\r\n') + '\r\n';

t.test('a valid policy is read whole', async (t) => {
  const parsed = parseStsPolicy(
    policy('version: STSv1', 'mode: enforce', 'mx: mail.example.com', 'mx: *.Example.NET', 'max_age: 604800', 'ext: x'),
  );
  t.ok('policy' in parsed);
  if (!('policy' in parsed)) return;
  t.equal(parsed.policy.mode, 'enforce');
  t.same(parsed.policy.mx, ['mail.example.com', '*.example.net'], 'patterns kept, lower-cased');
  t.equal(parsed.policy.maxAgeSeconds, 604800);
  t.equal(parsed.policy.lines.length, 6, 'the lines as published, for TLS reports');
  t.ok(
    'policy' in parseStsPolicy('version: STSv1\nmode: none\nmax_age: 86400\n'),
    'mode none needs no mx; LF accepted',
  );
});

t.test('policies that break RFC 8461 3.2 are refused', async (t) => {
  const cases: Array<[string, string, RegExp]> = [
    ['no version', policy('mode: enforce', 'mx: a.example', 'max_age: 1'), /version/],
    ['wrong version', policy('version: STSv2', 'mode: enforce', 'mx: a.example', 'max_age: 1'), /version/],
    ['unknown mode', policy('version: STSv1', 'mode: strict', 'mx: a.example', 'max_age: 1'), /mode/],
    ['no mode', policy('version: STSv1', 'mx: a.example', 'max_age: 1'), /mode/],
    ['no max_age', policy('version: STSv1', 'mode: enforce', 'mx: a.example'), /max_age/],
    ['negative max_age', policy('version: STSv1', 'mode: enforce', 'mx: a.example', 'max_age: -5'), /max_age/],
    ['max_age too large', policy('version: STSv1', 'mode: enforce', 'mx: a.example', 'max_age: 31557601'), /max_age/],
    ['enforce without mx', policy('version: STSv1', 'mode: enforce', 'max_age: 86400'), /mx/],
    ['bad mx pattern', policy('version: STSv1', 'mode: testing', 'mx: *.*.example', 'max_age: 86400'), /mx pattern/],
    ['mode twice', policy('version: STSv1', 'mode: testing', 'mode: enforce', 'mx: a.example', 'max_age: 1'), /twice/],
    ['not key: value', policy('version: STSv1', 'mode enforce', 'mx: a.example', 'max_age: 1'), /key: value/],
    ['an HTML page', '<html><body>Not found</body></html>', /key: value/],
  ];
  for (const [what, text, error] of cases) {
    const parsed = parseStsPolicy(text);
    t.ok('error' in parsed, `${what}: refused`);
    if ('error' in parsed) t.match(parsed.error, error, `${what}: says why`);
  }
});

t.test('the _mta-sts TXT record: exactly one v=STSv1 record with a valid id', async (t) => {
  t.equal(parseStsRecord(['v=STSv1; id=20160831085700Z;']), '20160831085700Z');
  t.equal(parseStsRecord(['v=spf1 -all', 'v=STSv1; id=abc']), 'abc', 'other records are ignored');
  t.equal(parseStsRecord(['v=STSv1; id=a', 'v=STSv1; id=b']), null, 'two STS records: no policy');
  t.equal(parseStsRecord(['v=STSv1;']), null, 'no id');
  t.equal(parseStsRecord(['v=STSv1; id=has-dash']), null, 'id is alphanumeric');
  t.equal(parseStsRecord(['v=STSv1; id=' + 'a'.repeat(33)]), null, 'id at most 32 characters');
  t.equal(parseStsRecord([]), null);
});

t.test('MX patterns: exact names, and *. for one left-most label', async (t) => {
  t.ok(mxMatches('mail.example.com', 'MAIL.example.com.'));
  t.notOk(mxMatches('mail.example.com', 'mail2.example.com'));
  t.ok(mxMatches('*.example.com', 'mx1.example.com'));
  t.notOk(mxMatches('*.example.com', 'example.com'), 'the wildcard needs a label');
  t.notOk(mxMatches('*.example.com', 'a.b.example.com'), 'and stands for one label only');
  t.notOk(mxMatches('*.example.com', 'mx1.badexample.com'));
});
