import t from 'tap';
import { startScheduler } from '../../../../scheduler/scheduler.js';
import { startWebhookApp, WebhookReceiver } from '../../../helpers/webhook-receiver.js';

/** Deliveries and attempts are kept for the plan's retention window (30 days on free, 90 on pro). */
const receiver = await WebhookReceiver.start();
const fx = await startWebhookApp({ workers: 0 });
t.teardown(async () => {
  await fx.close();
  await receiver.down();
});

t.test('purge-webhook-deliveries deletes what is older than each plan keeps', async (t) => {
  const knex = fx.app.runtime.db.knex;
  const dispatcher = fx.app.runtime.services.webhookDispatcher;
  const free = await fx.app.createTeam('free', 'free');
  const pro = await fx.app.createTeam('pro', 'pro');
  for (const team of [free, pro]) {
    await fx.createEndpoint(receiver.url(), ['suppression.added'], team.token);
    await fx.app.runtime.services.suppressions.addMany(team.teamId, ['old@example.com', 'new@example.com']);
  }
  t.equal(await dispatcher.drain('w'), 4);
  const fortyDaysAgo = new Date(Date.now() - 40 * 86_400_000);
  // One delivery and one attempt of each team were made 40 days ago.
  for (const table of ['webhook_deliveries', 'webhook_attempts']) {
    for (const team of [free, pro]) {
      const [row] = await knex(table).select('id').where({ team_id: team.teamId }).orderBy('id').limit(1);
      await knex(table).where({ id: row.id }).update({ created_at: fortyDaysAgo });
    }
  }
  const scheduler = startScheduler(fx.app.runtime);
  t.teardown(() => scheduler.stop());
  const result = await scheduler.runNow('purge-webhook-deliveries');
  t.same(result, { attempts: 1, deliveries: 1 }, 'only the free team’s 40-day-old rows');
  t.equal((await knex('webhook_deliveries').where({ team_id: free.teamId })).length, 1);
  t.equal((await knex('webhook_deliveries').where({ team_id: pro.teamId })).length, 2, 'pro keeps 90 days');
});
