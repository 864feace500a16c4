import t from 'tap';
import { request } from '../../helpers/http.js';
import { startTestApp } from '../../helpers/test-app.js';

const app = await startTestApp();
t.teardown(() => app.close());

type Team = { teamId: string; token: string };
const call = (team: Team, method: string, path: string, body?: unknown) =>
  request(app.url, path, { method, token: team.token, body });
const links = () => app.runtime.services.contactLinks;
const pathOf = (url: string) => new URL(url).pathname;
const form = (path: string, body: string, userAgent: string | null = 'Mail client/1.0') =>
  request(app.url, path, {
    method: 'POST',
    rawBody: body,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    userAgent,
  });

t.test('one-click unsubscribe (RFC 8058): POST with no credential, cookie or User-Agent', async (t) => {
  const team = await app.createTeam();
  const { id } = (await call(team, 'POST', '/contacts', { email: 'one@example.com' })).body;
  const url = links().unsubscribeUrl(id);
  t.ok(url.startsWith(`${app.url}/unsubscribe/`), 'on the public URL');
  const eventsBefore = (await app.runtime.services.eventLog.list(team.teamId)).length;
  const res = await form(pathOf(url), 'List-Unsubscribe=One-Click', null);
  t.equal(res.status, 200);
  t.equal(res.text, 'Unsubscribed\n');
  t.equal((await call(team, 'GET', `/contacts/${id}`)).body.unsubscribed, true);
  const consent = (await call(team, 'GET', `/contacts/${id}/consent`)).body.data;
  t.match(consent, [{ kind: 'unsubscribed', value: 'unsubscribed', source: 'one_click', ip: '127.0.0.1' }]);
  t.equal(
    (await app.runtime.services.eventLog.list(team.teamId)).length,
    eventsBefore,
    'no contact.updated for an unsubscribe outside the API',
  );
  const again = await form(pathOf(url), 'List-Unsubscribe=One-Click');
  t.equal(again.status, 200, 'a repeat is fine');
  t.equal((await call(team, 'GET', `/contacts/${id}/consent`)).body.data.length, 1, 'and records nothing new');
});

t.test('the unsubscribe link’s GET is a confirmation page; its form unsubscribes', async (t) => {
  const team = await app.createTeam('Acme');
  const kit = await call(team, 'PATCH', '/team', {
    brand_kit: {
      logo_url: null,
      primary_color: '#aa0000',
      accent_color: null,
      font: 'georgia',
      button_style: 'pill',
      company_name: 'Acme <Inc>',
      address: '1 Main St, Springfield',
      footer_text: null,
    },
  });
  t.equal(kit.status, 200, 'brand kit set');
  const { id } = (await call(team, 'POST', '/contacts', { email: 'two@example.com' })).body;
  const path = pathOf(links().unsubscribeUrl(id));
  const page = await request(app.url, path, { userAgent: null });
  t.equal(page.status, 200);
  t.match(page.headers.get('content-type'), /text\/html/);
  t.match(page.text, /<form method="post">/);
  t.match(page.text, /two@example\.com/);
  t.match(page.text, /Acme &lt;Inc&gt;/, 'the brand kit’s name, escaped');
  t.match(page.text, /#aa0000/, 'the brand kit’s colour');
  t.match(page.text, /Georgia/, 'and font');
  t.match(page.text, /1 Main St, Springfield/, 'and postal address');
  t.equal(page.headers.get('x-frame-options'), 'DENY');
  t.match(page.headers.get('content-security-policy'), /frame-ancestors 'none'/);
  t.equal(page.headers.get('cache-control'), 'no-store');
  t.equal((await call(team, 'GET', `/contacts/${id}`)).body.unsubscribed, false, 'GET changes nothing');
  const done = await form(path, 'confirm=1');
  t.equal(done.status, 200);
  t.match(done.text, /You are unsubscribed/);
  t.match(done.text, /\/preferences\//, 'links to the preference page');
  t.equal((await call(team, 'GET', `/contacts/${id}`)).body.unsubscribed, true);
});

t.test('bad tokens are 404: altered, wrong purpose, erased contact, garbage', async (t) => {
  const team = await app.createTeam();
  const { id } = (await call(team, 'POST', '/contacts', { email: 'three@example.com' })).body;
  const unsubscribe = pathOf(links().unsubscribeUrl(id));
  const preferences = pathOf(links().preferencesUrl(id));
  const token = unsubscribe.split('/').pop()!;
  const altered = token.slice(0, -2) + (token.endsWith('AA') ? 'AB' : 'AA');
  for (const path of [
    `/unsubscribe/${altered}`,
    `/unsubscribe/${preferences.split('/').pop()}`,
    `/preferences/${token}`,
    '/unsubscribe/not-a-token',
    `/unsubscribe/${'x'.repeat(65)}`,
  ]) {
    const res = await request(app.url, path);
    t.equal(res.status, 404, `${path.slice(0, 40)} is 404`);
    t.match(res.headers.get('content-type'), /text\/html/);
  }
  t.equal((await form(`/unsubscribe/${altered}`, 'List-Unsubscribe=One-Click')).status, 404);
  await call(team, 'DELETE', `/contacts/${id}`);
  t.equal((await request(app.url, unsubscribe)).status, 404, 'erased contact');
  t.equal((await request(app.url, preferences)).status, 404);
});

t.test('the preference page: public topics and private opt-ins, saved by a plain form post', async (t) => {
  const team = await app.createTeam();
  const topic = async (name: string, default_subscription: string, visibility: string) =>
    (await call(team, 'POST', '/topics', { name, default_subscription, visibility, description: `About ${name}` })).body
      .id as string;
  const news = await topic('News', 'opt_in', 'public');
  const offers = await topic('Offers', 'opt_out', 'public');
  const beta = await topic('Beta', 'opt_out', 'private');
  const hidden = await topic('Hidden', 'opt_out', 'private');
  const { id } = (
    await call(team, 'POST', '/contacts', { email: 'four@example.com', topics: [{ id: beta, subscription: 'opt_in' }] })
  ).body;
  const path = pathOf(links().preferencesUrl(id));
  const page = await request(app.url, path);
  t.equal(page.status, 200);
  for (const shown of [news, offers, beta]) t.match(page.text, `id="topic-${shown}"`, 'shown');
  t.notMatch(page.text, hidden, 'a private topic the contact is not in stays hidden');
  t.match(page.text, new RegExp(`id="topic-${news}" name="topic" value="${news}" checked`), 'default opt-in checked');
  t.match(page.text, new RegExp(`<label for="topic-${news}">News</label>`), 'labels tied to inputs');
  t.notMatch(page.text, /<script/i, 'no JavaScript');
  const saved = await form(path, `topic=${offers}&topic=${beta}&topic=${hidden}`);
  t.equal(saved.status, 303);
  t.equal(saved.headers.get('location'), `${path}?saved=1`);
  const after = await request(app.url, `${path}?saved=1`);
  t.match(after.text, /Your preferences were saved/);
  const topics = (await call(team, 'GET', `/contacts/${id}/topics`)).body.data;
  const subscription = (topicId: string) => topics.find((x: { id: string }) => x.id === topicId).subscription;
  t.equal(subscription(news), 'opt_out', 'unchecked');
  t.equal(subscription(offers), 'opt_in', 'checked');
  t.equal(subscription(beta), 'opt_in', 'kept');
  t.equal(subscription(hidden), 'opt_out', 'a topic not on the page cannot be changed from it');
  const consent = (await call(team, 'GET', `/contacts/${id}/consent`)).body.data;
  const fromPage = consent.filter((r: { source: string }) => r.source === 'preference_page');
  t.same(
    fromPage.map((r: { topic_id: string; value: string }) => [r.topic_id, r.value]).sort(),
    [
      [news, 'opt_out'],
      [offers, 'opt_in'],
    ].sort(),
    'only the changes recorded',
  );
  await form(path, `topic=${offers}&unsubscribed=1`);
  t.equal((await call(team, 'GET', `/contacts/${id}`)).body.unsubscribed, true, 'global opt-out from the page');
  await form(path, `topic=${offers}`);
  t.equal((await call(team, 'GET', `/contacts/${id}`)).body.unsubscribed, false, 'and back');
  t.equal((await form(path, 'x='.padEnd(70_000, 'y'))).status, 413, 'oversized form');
});
