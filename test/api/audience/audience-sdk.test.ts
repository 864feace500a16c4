import { Resend } from 'resend';
import t from 'tap';
import { startTestApp } from '../../helpers/test-app.js';

/** The resend SDK 6.x as a real client of every audience resource it has. */
const app = await startTestApp();
t.teardown(() => app.close());

const team = await app.createTeam();
const resend = new Resend(team.token, { baseUrl: `${app.url}/api/v1` } as never);

t.test('contactProperties', async (t) => {
  const created = await resend.contactProperties.create({ key: 'plan', type: 'string', fallbackValue: 'free' });
  t.equal(created.error, null);
  const id = created.data!.id;
  const got = await resend.contactProperties.get(id);
  t.match(got.data, { object: 'contact_property', id, key: 'plan', type: 'string', fallbackValue: 'free' });
  const updated = await resend.contactProperties.update({ id, fallbackValue: 'starter' });
  t.equal(updated.error, null);
  const list = await resend.contactProperties.list();
  t.same(
    list.data!.data.map((p) => [p.key, p.fallbackValue]),
    [['plan', 'starter']],
  );
  const duplicate = await resend.contactProperties.create({ key: 'plan', type: 'string' });
  t.match(duplicate.error, { name: 'invalid_parameter', statusCode: 422 });
});

t.test('topics', async (t) => {
  const created = await resend.topics.create({ name: 'News', defaultSubscription: 'opt_in' });
  t.equal(created.error, null);
  const id = created.data!.id;
  t.match((await resend.topics.get(id)).data, { object: 'topic', id, name: 'News', default_subscription: 'opt_in' });
  t.equal((await resend.topics.update({ id, name: 'Product news', visibility: 'public' } as never)).error, null);
  t.same(
    (await resend.topics.list()).data!.data.map((x) => x.name),
    ['Product news'],
  );
  const other = (await resend.topics.create({ name: 'Gone', defaultSubscription: 'opt_out' })).data!.id;
  t.match((await resend.topics.remove(other)).data, { object: 'topic', id: other, deleted: true });
});

t.test('segments and contacts with their sub-resources', async (t) => {
  const segment = await resend.segments.create({ name: 'Everyone at example', filter: null } as never);
  t.equal(segment.error, null);
  const segmentId = segment.data!.id;
  const topicId = (await resend.topics.list()).data!.data[0]!.id;
  const created = await resend.contacts.create({
    email: 'sdk@example.com',
    firstName: 'Sdk',
    properties: { plan: 'pro' },
    segments: [{ id: segmentId }],
    topics: [{ id: topicId, subscription: 'opt_out' }],
  });
  t.equal(created.error, null);
  const id = created.data!.id;
  const got = await resend.contacts.get({ email: 'sdk@example.com' });
  t.match(got.data, { object: 'contact', id, first_name: 'Sdk', properties: { plan: 'pro' } });
  t.equal((await resend.contacts.update({ id, lastName: 'Client' })).error, null);
  t.equal((await resend.contacts.get(id)).data!.last_name, 'Client');
  const inSegment = await resend.contacts.list({ segmentId });
  t.same(
    inSegment.data!.data.map((c) => c.id),
    [id],
  );
  const segments = await resend.contacts.segments.list({ contactId: id });
  t.same(
    segments.data!.data.map((s) => s.id),
    [segmentId],
  );
  const other = (await resend.segments.create({ name: 'Second' } as never)).data!.id;
  t.equal((await resend.contacts.segments.add({ contactId: id, segmentId: other })).error, null);
  t.equal((await resend.contacts.segments.remove({ email: 'sdk@example.com', segmentId: other })).error, null);
  const topics = await resend.contacts.topics.list({ id });
  t.same(
    topics.data!.data.map((x) => [x.id, x.subscription]),
    [[topicId, 'opt_out']],
  );
  t.equal((await resend.contacts.topics.update({ id, topics: [{ id: topicId, subscription: 'opt_in' }] })).error, null);
  t.equal((await resend.contacts.topics.list({ id })).data!.data[0]!.subscription, 'opt_in');
  t.match((await resend.segments.get(segmentId)).data, { object: 'segment', id: segmentId });
  t.same(
    (await resend.segments.list()).data!.data.map((s) => s.id),
    [other, segmentId],
  );
  // The deprecated audienceId paths.
  const viaAudience = await resend.contacts.create({ audienceId: segmentId, email: 'legacy@example.com' } as never);
  t.equal(viaAudience.error, null);
  t.match((await resend.contacts.get({ audienceId: segmentId, email: 'legacy@example.com' } as never)).data, {
    email: 'legacy@example.com',
  });
  t.equal((await resend.contacts.remove({ audienceId: segmentId, email: 'legacy@example.com' } as never)).error, null);
  const removed = await resend.contacts.remove(id);
  t.match(removed.data, { object: 'contact', deleted: true, contact: id });
  t.match((await resend.contacts.get(id)).error, { name: 'not_found', statusCode: 404 });
  t.match((await resend.segments.remove(segmentId)).data, { object: 'segment', id: segmentId, deleted: true });
});
