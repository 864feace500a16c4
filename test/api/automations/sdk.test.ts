import { Resend } from 'resend';
import t from 'tap';
import { request } from '../../helpers/http.js';
import { startTestApp } from '../../helpers/test-app.js';

/** The resend SDK's `automations` resource is the contract where the spec shows nothing. */
const app = await startTestApp();
t.teardown(() => app.close());

const sdkFor = (token: string) => new Resend(token, { baseUrl: `${app.url}/api/v1` } as never);

t.test('every method of resend.automations (but runs) against the appliance', async (t) => {
  const team = await app.createTeam();
  const resend = sdkFor(team.token);
  const post = (path: string, body?: unknown) => request(app.url, path, { method: 'POST', token: team.token, body });
  await post('/events', { name: 'user.signed_up' });
  const template = (await post('/templates', { name: 'welcome', html: '<p>hi</p>', subject: 'Hi' })).body.id;
  await post(`/templates/${template}/publish`);
  const segment = (await post('/segments', { name: 'vip', filter: null })).body.id;
  await post('/contact-properties', { key: 'plan', type: 'string' });

  const created = await resend.automations.create({
    name: 'Welcome',
    steps: [
      { key: 'start', type: 'trigger', config: { eventName: 'user.signed_up' } },
      { key: 'wait', type: 'delay', config: { duration: '30 minutes' } },
      { key: 'check', type: 'condition', config: { type: 'rule', field: 'properties.plan', operator: 'exists' } },
      { key: 'mail', type: 'send_email', config: { template: { id: template, variables: { plan: 'pro' } } } },
      { key: 'tag', type: 'contact_update', config: { firstName: 'Friend', properties: { plan: 'lead' } } },
      { key: 'seg', type: 'add_to_segment', config: { segmentId: segment } },
    ],
    connections: [
      { from: 'start', to: 'wait' },
      { from: 'wait', to: 'check' },
      { from: 'check', to: 'mail', type: 'condition_met' },
      { from: 'check', to: 'tag', type: 'condition_not_met' },
      { from: 'tag', to: 'seg' },
    ],
  });
  t.equal(created.error, null, JSON.stringify(created.error));
  t.same(created.data, { object: 'automation', id: created.data!.id });
  const id = created.data!.id;

  const got = await resend.automations.get(id);
  t.equal(got.error, null);
  t.match(got.data, { object: 'automation', id, name: 'Welcome', status: 'disabled', created_at: String });
  t.same(got.data!.steps[0], { key: 'start', type: 'trigger', config: { event_name: 'user.signed_up' } });
  t.same(got.data!.steps[4]!.config, { first_name: 'Friend', properties: { plan: 'lead' } });
  t.same(got.data!.connections[0], { from: 'start', to: 'wait', type: 'default' });

  const list = await resend.automations.list();
  t.equal(list.error, null);
  t.match(list.data, { object: 'list', has_more: false, data: [{ id, name: 'Welcome', status: 'disabled' }] });
  t.same((await resend.automations.list({ status: 'enabled' })).data!.data, []);
  t.match((await resend.automations.list({ status: 'paused' as never })).error, {
    statusCode: 422,
    name: 'invalid_parameter',
  });

  const updated = await resend.automations.update(id, { name: 'Welcome 2', status: 'enabled' });
  t.equal(updated.error, null);
  t.same(updated.data, { object: 'automation', id });
  const republished = await resend.automations.update(id, {
    steps: [
      { key: 'start', type: 'trigger', config: { eventName: 'svc:email.delivered' } },
      { key: 'wait', type: 'delay', config: { duration: '1 week' } },
    ],
    connections: [{ from: 'start', to: 'wait' }],
  });
  t.equal(republished.error, null);
  const now = (await resend.automations.get(id)).data!;
  t.match(now, { name: 'Welcome 2', status: 'enabled' });
  t.equal(now.steps.length, 2);
  t.equal((await app.runtime.services.automations.versions(id)).length, 2);
  t.match(
    (
      await resend.automations.update(id, {
        steps: [{ key: 'start', type: 'trigger', config: { eventName: 'user.signed_up' } }],
      })
    ).error,
    { statusCode: 422 },
    'steps without connections',
  );

  const invalid = await resend.automations.create({
    name: 'Bad',
    steps: [
      { key: 'start', type: 'trigger', config: { eventName: 'user.signed_up' } },
      { key: 'gone', type: 'contact_delete', config: {} },
    ],
    connections: [{ from: 'start', to: 'gone' }],
  });
  t.match(invalid.error, { statusCode: 422, name: 'validation_error' });

  const copy = await resend.automations.duplicate(id);
  t.equal(copy.error, null);
  t.same(copy.data, { object: 'automation', id: copy.data!.id });
  t.match((await resend.automations.get(copy.data!.id)).data, { name: 'Welcome 2 (copy)', status: 'disabled' });

  const stopped = await resend.automations.stop(id);
  t.equal(stopped.error, null);
  t.same(stopped.data, { object: 'automation', id, status: 'disabled' });
  t.equal((await resend.automations.get(id)).data!.status, 'disabled');

  const removed = await resend.automations.remove(id);
  t.equal(removed.error, null);
  t.same(removed.data, { object: 'automation', id, deleted: true });
  t.match((await resend.automations.get(id)).error, { statusCode: 404, name: 'not_found' });
  t.same(
    (await resend.automations.list()).data!.data.map((a) => a.id),
    [copy.data!.id],
  );
});
