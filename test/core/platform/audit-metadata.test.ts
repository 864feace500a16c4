import t from 'tap';
import { cleanAuditMetadata } from '../../../core/platform/audit/audit-metadata.js';

t.test('credential-like and content-like keys are dropped whatever the route passed', async (t) => {
  const cleaned = cleanAuditMetadata({
    name: 'Production',
    token: 'svc_abc',
    signing_secret: 'whsec_x',
    client_secret: 's',
    password: 'p',
    key: 'k',
    api_key: 'svc_y',
    code: '123456',
    html: '<p>body</p>',
    text: 'body',
    body: 'x',
    content: 'x',
    plan_code: 'pro',
    api_key_id: '0199',
    domain_id: null,
  });
  t.same(cleaned, { name: 'Production', plan_code: 'pro', api_key_id: '0199', domain_id: null });
});

t.test('values are bounded: long strings clipped, lists capped, non-scalars dropped', async (t) => {
  const cleaned = cleanAuditMetadata({
    long: 'x'.repeat(500),
    list: Array.from({ length: 80 }, (_, i) => `item${i}`),
    infinite: Number.POSITIVE_INFINITY,
    nested: { a: 1 } as never,
  });
  t.equal((cleaned.long as string).length, 200);
  t.equal((cleaned.list as string[]).length, 50);
  t.notOk('infinite' in cleaned);
  t.notOk('nested' in cleaned);
  const many = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, i]));
  t.equal(Object.keys(cleanAuditMetadata(many)).length, 20, 'at most 20 facts');
  t.same(cleanAuditMetadata(undefined), {});
});
