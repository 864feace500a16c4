import t from 'tap';
import { request } from '../../../helpers/http.js';
import { startWebhookApp, WebhookReceiver } from '../../../helpers/webhook-receiver.js';

/** The outbox under claims: a row is held by one worker at a time; a dead worker's lease runs out. */
const receiver = await WebhookReceiver.start();
const fx = await startWebhookApp({ workers: 0 });
t.teardown(async () => {
  await fx.close();
  await receiver.down();
});
const dispatcher = fx.app.runtime.services.webhookDispatcher;
const knex = fx.app.runtime.db.knex;

t.test('the event and its outbox rows commit together: one row per subscribed enabled endpoint', async (t) => {
  const team = await fx.app.createTeam('fanout', 'unlimited');
  await fx.createEndpoint(receiver.url('/a'), ['suppression.added'], team.token);
  await fx.createEndpoint(receiver.url('/b'), ['suppression.added', 'suppression.removed'], team.token);
  await fx.createEndpoint(receiver.url('/c'), ['domain.created'], team.token);
  const disabled = await fx.createEndpoint(receiver.url('/d'), ['suppression.added'], team.token);
  await request(fx.app.url, `/webhooks/${disabled.id}`, {
    method: 'PATCH',
    token: team.token,
    body: { status: 'disabled' },
  });
  await fx.app.runtime.services.suppressions.add(team.teamId, 'fan@example.com');
  const [event] = await fx.app.runtime.services.eventLog.list(team.teamId);
  const rows = await knex('webhook_deliveries').where({ event_id: event!.id });
  t.equal(rows.length, 2, 'the two enabled endpoints subscribed to suppression.added');
  t.ok(rows.every((r) => r.status === 'pending' && r.attempts === 0));
  await knex('webhook_deliveries').where({ team_id: team.teamId }).delete();
});

t.test('a claimed row is not claimed again until its lease runs out; the late settle is void', async (t) => {
  const team = await fx.app.createTeam('lease', 'unlimited');
  await fx.createEndpoint(receiver.url('/lease'), ['suppression.added'], team.token);
  await fx.app.runtime.services.suppressions.add(team.teamId, 'lease@example.com');
  const [dead] = await dispatcher.claim(10, 'dead-worker');
  t.ok(dead, 'claimed by a worker that then dies');
  t.same(await dispatcher.claim(10, 'other-worker'), [], 'held: nobody else gets it');
  // The lease runs out (a worker that died never settles).
  await knex('webhook_deliveries')
    .where({ id: dead!.id })
    .update({ next_attempt_at: new Date(Date.now() - 1000) });
  const [taken] = await dispatcher.claim(10, 'second-worker');
  t.equal(taken!.id, dead!.id, 'taken back after the lease');
  t.equal(await dispatcher.deliver(taken!), 'success');
  t.equal(receiver.received.filter((w) => w.path === '/lease').length, 1);
  // The first worker wakes up and tries to record its outcome: its lease is gone.
  const stale = await knex('webhook_deliveries')
    .where({ id: dead!.id, lease_owner: 'dead-worker' })
    .update({ status: 'attempting' });
  t.equal(stale, 0, 'a settle under a lost lease changes nothing');
  t.equal((await knex('webhook_deliveries').where({ id: dead!.id }).first()).status, 'success');
});

t.test('deliveries of a deleted endpoint are dropped', async (t) => {
  const team = await fx.app.createTeam('deleted', 'unlimited');
  const { id } = await fx.createEndpoint(receiver.url('/deleted'), ['suppression.added'], team.token);
  await fx.app.runtime.services.suppressions.add(team.teamId, 'gone@example.com');
  const [claimed] = await dispatcher.claim(10, 'worker');
  await knex('webhook_endpoints').where({ id }).delete();
  t.equal(await dispatcher.deliver(claimed!), 'dropped');
  t.equal((await knex('webhook_deliveries').where({ id: claimed!.id })).length, 0);
  t.equal(receiver.received.filter((w) => w.path === '/deleted').length, 0);
  // Deleted behind the service's back: another process may still queue a row for it for up to
  // webhooks.endpointCacheMs; such a row is dropped too, nothing sent.
  await fx.app.runtime.services.suppressions.add(team.teamId, 'gone2@example.com');
  await dispatcher.drain('w');
  t.equal((await knex('webhook_deliveries').where({ team_id: team.teamId })).length, 0, 'nothing left queued for it');
  t.equal(receiver.received.filter((w) => w.path === '/deleted').length, 0, 'nothing sent');
});

t.test('DELETE removes the endpoint with its delivery log', async (t) => {
  const team = await fx.app.createTeam('cascade', 'unlimited');
  const { id } = await fx.createEndpoint(receiver.url('/cascade'), ['suppression.added'], team.token);
  await fx.app.runtime.services.suppressions.addMany(team.teamId, ['c1@example.com', 'c2@example.com']);
  t.equal(await dispatcher.drain('w'), 2);
  await request(fx.app.url, `/webhooks/${id}`, { method: 'DELETE', token: team.token });
  t.equal((await knex('webhook_deliveries').where({ endpoint_id: id })).length, 0);
  t.equal((await knex('webhook_attempts').where({ team_id: team.teamId })).length, 0);
});
