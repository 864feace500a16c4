import t from 'tap';
import { insertDeliveries, insertEmail } from '../helpers/queue-rows.js';
import { startTestApp } from '../helpers/test-app.js';

/**
 * Outcomes settle in groups (one transaction for the outcomes that arrive while the previous
 * group commits). A delivery whose lease ran out and was claimed again by another worker is
 * not settled by the slow worker, also inside a group, and the other outcomes of that group
 * still settle, each exactly once.
 */
const app = await startTestApp();
t.teardown(() => app.close());
const { runtime } = app;
const deliveries = runtime.services.deliveries;
const team = await app.createTeam('Settle groups');
const attempt = {
  egressIp: '127.0.0.2',
  mxHost: 'mx.dest.test',
  reply: '250 2.0.0 Ok',
  transcript: 'S: 250 2.0.0 Ok',
  durationMs: 3,
};

t.test('a lost lease settles nothing; the rest of its group settles once', async (t) => {
  const emails = await Promise.all(
    ['first', 'lost', 'kept'].map((name) => insertEmail(runtime, team.teamId, [`${name}@dest.test`])),
  );
  const rows = (await Promise.all(emails.map((email) => insertDeliveries(runtime, email)))).flat();
  const slow = await deliveries.claim('transactional', 10, 'slow-worker', 1);
  t.equal(slow.length, 3, 'the slow worker claimed all three with a lease that runs out at once');
  await new Promise((resolve) => setTimeout(resolve, 20));
  const [lostRow] = rows.filter((d) => d.recipient === 'lost@dest.test');
  await runtime.db
    .knex('deliveries')
    .whereNot({ id: lostRow!.id })
    .update({ next_attempt_at: new Date(Date.now() + 60_000) });
  const retaken = await deliveries.claim('transactional', 10, 'other-worker', 60_000);
  t.same(
    retaken.map((d) => d.recipient),
    ['lost@dest.test'],
    'another worker took the expired one back',
  );

  const byRecipient = (recipient: string) => slow.find((d) => d.recipient === recipient)!;
  const email = (recipient: string) => emails.find((e) => e.to[0] === recipient)!;
  // Three at once: the first commits alone, the other two wait and commit as one group.
  const [first, lost, kept] = await Promise.all(
    ['first@dest.test', 'lost@dest.test', 'kept@dest.test'].map((recipient) =>
      deliveries.delivered(email(recipient), [byRecipient(recipient)], attempt),
    ),
  );
  t.equal(first!.length, 1, 'the first settles');
  t.equal(lost!.length, 0, 'the slow worker settles nothing it no longer holds');
  t.equal(kept!.length, 1, 'its group neighbour settles');

  const states = Object.fromEntries(
    (
      await runtime.db
        .knex('deliveries')
        .whereIn(
          'id',
          rows.map((d) => d.id),
        )
        .select('recipient', 'state', 'lease_owner')
    ).map((r: { recipient: string; state: string; lease_owner: string | null }) => [
      r.recipient,
      [r.state, r.lease_owner],
    ]),
  );
  t.same(states, {
    'first@dest.test': ['delivered', null],
    'lost@dest.test': ['sending', 'other-worker'],
    'kept@dest.test': ['delivered', null],
  });
  const events = await runtime.services.eventLog.list(team.teamId, { type: 'email.delivered' });
  t.same(
    events.map((e) => (e.data.to as string[])[0]).sort(),
    ['first@dest.test', 'kept@dest.test'],
    'one email.delivered each, none for the lost lease',
  );
  const attempts = await runtime.db
    .knex('delivery_attempts')
    .whereIn(
      'delivery_id',
      rows.map((d) => d.id),
    )
    .select('delivery_id');
  t.equal(attempts.length, 2, 'one attempt recorded per settled delivery');
});
