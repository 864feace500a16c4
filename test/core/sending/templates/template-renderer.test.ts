import t from 'tap';
import { renderTemplate } from '../../../../core/sending/templates/template-renderer.js';
import type { TemplateVersion } from '../../../../core/sending/templates/template.types.js';
import { EMPTY_BRAND_KIT } from '../../../../core/platform/teams/team.types.js';
import { refusal } from '../../../helpers/refusal.js';

const version = (partial: Partial<TemplateVersion>): TemplateVersion => ({
  id: 'v',
  templateId: 't',
  version: 1,
  from: null,
  subject: null,
  replyTo: null,
  html: '',
  text: null,
  variables: [],
  createdAt: new Date(),
  updatedAt: new Date(),
  ...partial,
});

t.test('rendering by type: strings escaped in html and raw in subject and text', async (t) => {
  const v = version({
    subject: 'Hi {{name}}',
    html: '<p>{{name}} {{count}} {{flag}} {{data}} {{items}}</p>',
    text: '{{name}} {{count}} {{flag}} {{data}} {{items}}',
    variables: [
      { key: 'name', type: 'string', fallback_value: null },
      { key: 'count', type: 'number', fallback_value: 3 },
      { key: 'flag', type: 'boolean', fallback_value: true },
      { key: 'data', type: 'object', fallback_value: { a: '<b>' } },
      { key: 'items', type: 'list', fallback_value: ['x', 1] },
    ],
  });
  const out = renderTemplate(v, { name: 'Tom & <Jerry>' }, EMPTY_BRAND_KIT);
  t.equal(out.subject, 'Hi Tom & <Jerry>');
  t.equal(out.text, 'Tom & <Jerry> 3 true {"a":"<b>"} ["x",1]');
  t.equal(out.html, '<p>Tom &amp; &lt;Jerry&gt; 3 true {&quot;a&quot;:&quot;&lt;b&gt;&quot;} [&quot;x&quot;,1]</p>');
});

t.test('no nested expansion: an inserted value that looks like a placeholder stays', async (t) => {
  const v = version({
    html: '{{a}}|{{b}}',
    variables: [
      { key: 'a', type: 'string', fallback_value: null },
      { key: 'b', type: 'string', fallback_value: 'B' },
    ],
  });
  t.equal(renderTemplate(v, { a: '{{b}}' }, EMPTY_BRAND_KIT).html, '{{b}}|B');
});

t.test('values win over fallbacks; missing without fallback is 422; too long is 400', async (t) => {
  const v = version({
    text: '{{a}} {{b}}',
    html: '{{a}} {{b}}',
    variables: [
      { key: 'a', type: 'string', fallback_value: 'fa' },
      { key: 'b', type: 'number', fallback_value: null },
    ],
  });
  t.equal(renderTemplate(v, { a: 'va', b: 7 }, EMPTY_BRAND_KIT).text, 'va 7');
  t.equal(renderTemplate(v, { b: '8' }, EMPTY_BRAND_KIT).text, 'fa 8');
  t.match(
    refusal(() => renderTemplate(v, { a: 'x' }, EMPTY_BRAND_KIT)),
    { statusCode: 422, errorName: 'missing_required_field', errors: [{ path: 'template.variables.b' }] },
  );
  t.match(
    refusal(() => renderTemplate(v, { a: 'x'.repeat(2001), b: 1 }, EMPTY_BRAND_KIT)),
    { statusCode: 400, errorName: 'validation_error' },
  );
  t.match(
    refusal(() => renderTemplate(v, { a: { nested: true }, b: 1 }, EMPTY_BRAND_KIT)),
    { statusCode: 400, errorName: 'validation_error' },
  );
  t.equal(
    renderTemplate(v, { a: 'x'.repeat(2000), b: 1 }, EMPTY_BRAND_KIT).text?.length,
    2002,
    '2000 characters is fine',
  );
});

t.test('brand tokens: team values, escaped in html; null renders a neutral default, never text', async (t) => {
  const v = version({
    html: '<a style="color:{{brand.primary_color}};border-radius:{{brand.button_radius}};font-family:{{brand.font}}">{{brand.company_name}}</a><img src="{{brand.logo_url}}">{{brand.footer_text}}',
  });
  const branded = renderTemplate(
    v,
    {},
    {
      ...EMPTY_BRAND_KIT,
      primary_color: '#123456',
      button_style: 'pill',
      font: 'georgia',
      company_name: 'A&B',
      logo_url: 'https://cdn.example/logo.png',
    },
  ).html;
  t.match(branded, /color:#123456/);
  t.match(branded, /border-radius:999px/);
  t.match(branded, /font-family:Georgia, serif/);
  t.match(branded, />A&amp;B</);
  t.match(branded, /src="https:\/\/cdn.example\/logo.png"/);
  const neutral = renderTemplate(v, {}, EMPTY_BRAND_KIT).html;
  t.notMatch(neutral, /null|undefined|\{\{/);
  t.match(neutral, /src="data:image\/gif;base64,/, 'a transparent pixel, not a broken image');
  t.match(neutral, /<\/a><img/, 'empty company name');
});
