import t from 'tap';
import {
  placeholdersOf,
  renderPlaceholders,
  scanPlaceholders,
  syntaxProblems,
} from '../../../core/shared/placeholders/placeholder-syntax.js';

const values: Record<string, string> = { NAME: 'Ada', name: 'ada', 'brand.company_name': 'Acme' };
const render = (text: string) => renderPlaceholders(text, (p) => values[p.name] ?? p.fallback);

t.test('two and three braces mean the same; spaces inside are allowed', async (t) => {
  t.equal(render('Welcome {{NAME}}'), 'Welcome Ada');
  t.equal(render('Welcome {{{NAME}}}'), 'Welcome Ada', 'never "Welcome {Ada}"');
  t.equal(render('Welcome {{ NAME }} and {{{  name  }}}'), 'Welcome Ada and ada');
  t.equal(render('{{brand.company_name}}'), 'Acme');
  t.same(
    placeholdersOf('{{{KEY|there}}}', '{{ KEY | x y }}').map((p) => [p.name, p.fallback, p.raw]),
    [
      ['KEY', 'there', '{{{KEY|there}}}'],
      ['KEY', ' x y ', '{{ KEY | x y }}'],
    ],
  );
});

t.test('one pass: an inserted value that looks like a placeholder stays', async (t) => {
  t.equal(
    renderPlaceholders('{{a}}|{{b}}', (p) => (p.name === 'a' ? '{{b}}' : 'B')),
    '{{b}}|B',
  );
});

t.test('an unknown name (undefined) stays as written', async (t) => {
  t.equal(render('Hi {{{OTHER}}}!'), 'Hi {{{OTHER}}}!');
});

t.test('closing braces beyond the opening ones are text; "}}" alone is text', async (t) => {
  t.equal(render('a{color:{{NAME}}}'), 'a{color:Ada}', 'a CSS block ends with the third brace');
  t.same(syntaxProblems({ html: '@media screen{.a{color:red}}' }), []);
  t.same(syntaxProblems({ html: '<style>.a { color: red }</style> {x} { {' }), []);
});

t.test('placeholders that do not parse: refused with the field and the text, never half-substituted', async (t) => {
  const cases: Array<[string, string, RegExp]> = [
    ['Welcome {{NAME}', '{{NAME}', /opens with \{\{ but closes with \}/],
    ['Welcome {{{NAME}}', '{{{NAME}}', /opens with \{\{\{ but closes with \}\}/],
    ['Welcome {{}}', '{{}}', /is empty/],
    ['Welcome {{ }}', '{{ }}', /is empty/],
    ['Welcome {{{ }}}', '{{{ }}}', /is empty/],
    ['Welcome {{first-name}}', '{{first-name}}', /names "first-name"/],
    ['Welcome {{first name}}', '{{first name}}', /names "first name"/],
    ['Welcome {{a.b.c}}', '{{a.b.c}}', /names "a.b.c"/],
    ['Welcome {{|x}}', '{{|x}}', /a default but no name/],
    ['Welcome {{{{NAME}}}}', '{{{{NAME}}}}', /opens with 4 braces/],
    ['Welcome {{NAME', '{{NAME', /is not closed/],
    ['Welcome {{NAME {{NAME}}', '{{NAME ', /is not closed before the next \{/],
  ];
  for (const [text, raw, reason] of cases) {
    const problems = syntaxProblems({ html: text });
    t.equal(problems.length, 1, text);
    t.equal(problems[0]?.path, 'html', text);
    t.ok(problems[0]?.message.startsWith(`placeholder "${raw}" `), `${text}: quotes ${raw}`);
    t.match(problems[0]?.message, reason, text);
    t.notOk(render(text).includes('Ada}') || render(text).includes('{Ada'), `${text}: no half substitution`);
  }
  t.equal(render('Welcome {{{NAME}}'), 'Welcome {{{NAME}}', 'a flaw renders as written');
  t.equal(render('{{NAME {{NAME}}'), '{{NAME Ada', 'the well-formed one after a flaw still renders');
});

t.test('a long unclosed placeholder is quoted shortened', async (t) => {
  const [problem] = syntaxProblems({ text: `{{${'x'.repeat(500)}` });
  t.ok(problem!.message.length < 200);
  t.match(problem!.message, /…"/);
});

t.test('several fields and several flaws: one problem each', async (t) => {
  t.same(
    syntaxProblems({ subject: 'Hi {{NAME}', html: '<p>{{}}</p><p>{{{x}}</p>', text: null }).map((p) => p.path),
    ['subject', 'html', 'html'],
  );
  t.same(scanPlaceholders('').pieces, []);
});
