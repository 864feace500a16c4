import { Resend } from 'resend';
import t from 'tap';
import { errorShape, request } from '../helpers/http.js';
import { startTestApp } from '../helpers/test-app.js';

const app = await startTestApp();
t.teardown(() => app.close());

const address = { line1: '1 Main St', city: 'Springfield', postal_code: '12345', country: 'US' };
const fullKit = {
  logo_url: 'https://cdn.example.com/logo.png',
  primary_color: '#112233',
  accent_color: '#AABBCC',
  font: 'georgia',
  button_style: 'pill',
  company_name: 'Acme',
  address: '1 Main St, Springfield',
  footer_text: 'You get this because you asked.',
};

t.test('GET /team: the whole team object', async (t) => {
  const { token, teamId } = await app.createTeam('Acme Inc');
  const res = await request(app.url, '/team', { token });
  t.equal(res.status, 200);
  t.match(res.body, {
    object: 'team',
    id: teamId,
    name: 'Acme Inc',
    slug: /^acme-inc/,
    risk_state: 'normal',
    plan: {
      code: 'free',
      name: 'Free',
      limits: {
        included_emails: Number,
        daily_cap: 100,
        domain_limit: 1,
        webhook_endpoint_limit: 1,
        retention_days: 30,
      },
      single_sign_on: false,
    },
    sender_identity: { sender_name: null, postal_address: null },
    ai_assist_enabled: false,
    sending: {
      tier: 0,
      tier_name: 'new',
      next_unlock: 'verify_domain',
      sandbox_regions: ['us-east-1', 'eu-west-1', 'sa-east-1', 'ap-northeast-1'],
    },
    sso: null,
  });
  t.same(Object.keys(res.body.brand_kit).sort(), Object.keys(fullKit).sort());
  t.ok(
    Object.values(res.body.brand_kit).every((v) => v === null),
    'brand kit defaults are null',
  );
  t.ok(!Number.isNaN(Date.parse(res.body.created_at)));
});

t.test('PATCH /team: name, and the slug never changes', async (t) => {
  const { token } = await app.createTeam('Before');
  const before = (await request(app.url, '/team', { token })).body;
  const res = await request(app.url, '/team', { method: 'PATCH', token, body: { name: 'After' } });
  t.equal(res.status, 200);
  t.equal(res.body.name, 'After');
  t.equal(res.body.slug, before.slug);
  errorShape(
    t,
    await request(app.url, '/team', { method: 'PATCH', token, body: { name: '' } }),
    400,
    'validation_error',
  );
  errorShape(
    t,
    await request(app.url, '/team', { method: 'PATCH', token, body: { name: 'x'.repeat(81) } }),
    400,
    'validation_error',
  );
  errorShape(
    t,
    await request(app.url, '/team', { method: 'PATCH', token, body: { name: 'two\nlines' } }),
    400,
    'validation_error',
  );
  t.equal((await request(app.url, '/team', { method: 'PATCH', token, body: { name: 'x'.repeat(80) } })).status, 200);
});

t.test('PATCH /team: at least one field; unknown fields refused', async (t) => {
  const { token } = await app.createTeam();
  errorShape(t, await request(app.url, '/team', { method: 'PATCH', token, body: {} }), 422, 'missing_required_field');
  errorShape(
    t,
    await request(app.url, '/team', { method: 'PATCH', token, body: { slug: 'new' } }),
    400,
    'validation_error',
  );
});

t.test('PATCH /team: sender_name needs a postal address first', async (t) => {
  const { token } = await app.createTeam();
  const refused = errorShape(
    t,
    await request(app.url, '/team', { method: 'PATCH', token, body: { sender_name: 'Acme Mail' } }),
    422,
    'validation_error',
  );
  t.equal(refused.errors?.[0]?.path, 'postal_address');
  const both = await request(app.url, '/team', {
    method: 'PATCH',
    token,
    body: { sender_name: 'Acme Mail', postal_address: address },
  });
  t.equal(both.status, 200);
  t.same(both.body.sender_identity, {
    sender_name: 'Acme Mail',
    postal_address: { ...address, line2: null, state: null },
  });
  t.equal(
    (await request(app.url, '/team', { method: 'PATCH', token, body: { sender_name: 'Renamed Mail' } })).status,
    200,
    'alone once an address exists',
  );
  errorShape(
    t,
    await request(app.url, '/team', { method: 'PATCH', token, body: { sender_name: 'x'.repeat(201) } }),
    400,
    'validation_error',
  );
});

t.test('PATCH /team: postal_address country is upper-case ISO 3166-1 alpha-2', async (t) => {
  const { token } = await app.createTeam();
  for (const country of ['us', 'USA', 'XX', 'ZZ', '']) {
    const body = errorShape(
      t,
      await request(app.url, '/team', { method: 'PATCH', token, body: { postal_address: { ...address, country } } }),
      400,
      'validation_error',
    );
    t.equal(body.errors?.[0]?.path, 'postal_address.country', `refused: "${country}"`);
  }
  const missing = errorShape(
    t,
    await request(app.url, '/team', {
      method: 'PATCH',
      token,
      body: { postal_address: { line1: 'x', country: 'DE' } },
    }),
    422,
    'missing_required_field',
  );
  t.same(missing.errors?.map((e) => e.path).sort(), ['postal_address.city', 'postal_address.postal_code']);
  t.equal(
    (
      await request(app.url, '/team', {
        method: 'PATCH',
        token,
        body: { postal_address: { ...address, country: 'DE' } },
      })
    ).status,
    200,
  );
});

t.test('PATCH /team: ai_assist_enabled true needs AI configured (503); false always works', async (t) => {
  const { token } = await app.createTeam();
  errorShape(
    t,
    await request(app.url, '/team', { method: 'PATCH', token, body: { ai_assist_enabled: true } }),
    503,
    'service_unavailable',
  );
  const off = await request(app.url, '/team', { method: 'PATCH', token, body: { ai_assist_enabled: false } });
  t.equal(off.status, 200);
  t.equal(off.body.ai_assist_enabled, false);
});

t.test('PATCH /team: brand_kit is sent whole with value rules; null resets', async (t) => {
  const { token } = await app.createTeam();
  const set = await request(app.url, '/team', { method: 'PATCH', token, body: { brand_kit: fullKit } });
  t.equal(set.status, 200);
  t.same(set.body.brand_kit, fullKit);
  const partial = errorShape(
    t,
    await request(app.url, '/team', { method: 'PATCH', token, body: { brand_kit: { primary_color: '#000000' } } }),
    422,
    'missing_required_field',
  );
  t.equal(partial.errors?.length, 7, 'every missing field is named');
  const cases: Array<[string, unknown]> = [
    ['primary_color', '#12345'],
    ['accent_color', 'red'],
    ['font', 'comic-sans'],
    ['button_style', 'round'],
    ['company_name', 'two\nlines'],
    ['footer_text', 'tab\u0007bell'],
    ['logo_url', 'javascript:alert(1)'],
  ];
  for (const [field, value] of cases) {
    const body = errorShape(
      t,
      await request(app.url, '/team', { method: 'PATCH', token, body: { brand_kit: { ...fullKit, [field]: value } } }),
      400,
      'validation_error',
    );
    t.equal(body.errors?.[0]?.path, `brand_kit.${field}`);
  }
  const nulls = await request(app.url, '/team', {
    method: 'PATCH',
    token,
    body: { brand_kit: { ...fullKit, font: null, primary_color: null } },
  });
  t.equal(nulls.body.brand_kit.font, null, 'null resets a field');
  t.equal(nulls.body.brand_kit.accent_color, '#AABBCC');
  const reset = await request(app.url, '/team', { method: 'PATCH', token, body: { brand_kit: null } });
  t.ok(
    Object.values(reset.body.brand_kit).every((v) => v === null),
    'null for the whole kit resets it',
  );
});

t.test('GET /team/members: members with role and MFA use', async (t) => {
  const team = await app.runtime.services.teams.create({ name: 'With owner', ownerEmail: 'Owner@Example.com' });
  const key = await app.runtime.services.apiKeys.create(team.id, { name: 'k', permission: 'full_access' });
  const res = await request(app.url, '/team/members', { token: key.token });
  t.equal(res.status, 200);
  t.match(res.body, {
    object: 'list',
    has_more: false,
    data: [{ object: 'team_member', email: 'owner@example.com', role: 'owner', mfa_enabled: false }],
  });
});

t.test('the resend SDK reaches the team through the same base', async (t) => {
  const { token } = await app.createTeam('SDK team');
  const resend = new Resend(token, { baseUrl: `${app.url}/api/v1` } as never);
  const res = await resend.get<{ name: string }>('/team');
  t.equal(res.error, null);
  t.equal(res.data?.name, 'SDK team');
});
