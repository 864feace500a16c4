import t from 'tap';
import { errorShape, request } from '../../helpers/http.js';
import { startTestApp } from '../../helpers/test-app.js';
import { markedVerifiedDomain } from '../../helpers/verified-domain.js';

/**
 * POST /broadcasts/{id}/preview: the broadcast rendered for one contact by the fan-out's code —
 * merge values HTML-escaped, the inline default and the property's fallback, the footer with
 * the postal address and a working unsubscribe link — with unsaved content rendered instead of
 * the stored draft's, nothing stored; its errors with their status and name.
 */
const app = await startTestApp();
t.teardown(() => app.close());

const team = await app.createTeam('Acme', 'pro');
const call = (method: string, path: string, body?: unknown, token = team.token) =>
  request(app.url, path, { method, token, body });
const domain = 'news-preview.test';
await markedVerifiedDomain(app, team.teamId, domain);
await call('PATCH', '/team', {
  sender_name: 'Acme',
  postal_address: { line1: '1 Main Street', city: 'Springfield', postal_code: '62701', country: 'US' },
});
await call('POST', '/contact-properties', { key: 'plan', type: 'string', fallback_value: 'free' });
const segment = (
  await call('POST', '/segments', {
    name: 'Everyone',
    filter: { all: [{ field: 'email', op: 'contains', value: '@' }] },
  })
).body.id as string;
const ada = (
  await call('POST', '/contacts', { email: 'ada@dest.test', first_name: 'Ada', properties: { plan: 'pro <b>&' } })
).body.id as string;
const bob = (await call('POST', '/contacts', { email: 'bob@dest.test' })).body.id as string;
const broadcast = (
  await call('POST', '/broadcasts', {
    segment_id: segment,
    from: `Acme <news@${domain}>`,
    subject: 'Hello {{{FIRST_NAME|there}}}',
    preview_text: 'Our news',
    html: '<p>Hi {{{FIRST_NAME|there}}}, your plan: {{{plan}}}</p>',
    text: 'Hi {{{FIRST_NAME|there}}}, plan {{{plan}}}',
  })
).body.id as string;

t.test('renders the saved draft for a contact, with values, fallbacks and the footer', async (t) => {
  const forAda = await call('POST', `/broadcasts/${broadcast}/preview`, { contact_id: ada });
  t.equal(forAda.status, 200, forAda.text);
  t.match(forAda.body, { object: 'broadcast_preview', broadcast_id: broadcast, contact_id: ada, subject: 'Hello Ada' });
  t.match(forAda.body.html, '<p>Hi Ada, your plan: pro &lt;b&gt;&amp;</p>', 'values are HTML-escaped in html');
  t.match(forAda.body.text, 'Hi Ada, plan pro <b>&', 'and raw in text');
  t.match(forAda.body.html, /display:none[^>]*>Our news</, 'the hidden preview line');
  t.match(forAda.body.html, '1 Main Street', 'the footer has the postal address');
  t.match(forAda.body.headers['List-Unsubscribe'], /^<http[^>]+\/unsubscribe\/[A-Za-z0-9_-]+>/);
  const link = /href="([^"]+\/unsubscribe\/[^"]+)"/.exec(forAda.body.html)?.[1];
  t.ok(link, 'the footer links to the contact’s unsubscribe page');

  const forBob = await call('POST', `/broadcasts/${broadcast}/preview`, { contact_id: 'bob@dest.test' });
  t.equal(forBob.status, 200);
  t.equal(forBob.body.contact_id, bob, 'a contact named by email address');
  t.equal(forBob.body.subject, 'Hello there', 'the inline default');
  t.match(forBob.body.html, 'your plan: free', 'the property’s fallback_value');
  t.equal((await call('GET', `/contacts/${bob}`)).body.unsubscribed, false, 'rendering unsubscribes no one');
});

t.test('renders unsaved content instead of the stored one, and stores nothing', async (t) => {
  const preview = await call('POST', `/broadcasts/${broadcast}/preview`, {
    contact_id: ada,
    subject: 'Draft for {{{FIRST_NAME}}}',
    html: '<p>{{{plan|none}}}</p><a href="{{{UNSUBSCRIBE_URL}}}">Leave</a>',
    preview_text: null,
  });
  t.equal(preview.status, 200, preview.text);
  t.equal(preview.body.subject, 'Draft for Ada');
  t.notMatch(preview.body.html, '1 Main Street', 'no footer when the body names the unsubscribe link');
  t.notMatch(preview.body.html, 'display:none', 'no preview line once cleared');
  t.match(preview.body.html, /<a href="http[^"]+\/unsubscribe\/[^"]+">Leave<\/a>/);
  const stored = await call('GET', `/broadcasts/${broadcast}`);
  t.equal(stored.body.subject, 'Hello {{{FIRST_NAME|there}}}', 'the draft is unchanged');
});

t.test('errors: unknown broadcast or contact, bad placeholder, missing contact, permission', async (t) => {
  const missing = '0199a0a0-0000-7000-8000-00000000dead';
  errorShape(t, await call('POST', `/broadcasts/${missing}/preview`, { contact_id: ada }), 404, 'not_found');
  errorShape(
    t,
    await call('POST', `/broadcasts/${broadcast}/preview`, { contact_id: 'nobody@dest.test' }),
    404,
    'not_found',
  );
  errorShape(
    t,
    await call('POST', `/broadcasts/${broadcast}/preview`, { contact_id: ada, html: '<p>{{{plan</p>' }),
    422,
    'validation_error',
  );
  errorShape(t, await call('POST', `/broadcasts/${broadcast}/preview`, {}), 422, 'missing_required_field');
  const other = await app.createTeam('Other', 'pro');
  errorShape(
    t,
    await call('POST', `/broadcasts/${broadcast}/preview`, { contact_id: ada }, other.token),
    404,
    'not_found',
  );
  const key = await app.runtime.services.apiKeys.create(team.teamId, { name: 'send', permission: 'sending_access' });
  errorShape(
    t,
    await call('POST', `/broadcasts/${broadcast}/preview`, { contact_id: ada }, key.token),
    401,
    'restricted_api_key',
  );
  const openapi = await request(app.url, '/openapi.json');
  t.ok(openapi.body.paths['/broadcasts/{broadcast_id}/preview']?.post, 'declared in /openapi.json');
});
