import { execFile } from 'node:child_process';
import { join } from 'node:path';
import t from 'tap';
import { DeliveryRepository } from '../../core/sending/deliveries/delivery.repository.js';
import { insertAttempt, insertDeliveries, insertEmail } from '../helpers/queue-rows.js';
import { startTestApp } from '../helpers/test-app.js';

// The appliance under test writes its configuration file (pools) into its data directory; the
// spawned `mailroom` commands read the same file and database.
const app = await startTestApp({
  config: {
    mta: {
      regions: {
        'us-east-1': { ips: [{ address: '127.0.0.2', helo: 'out2.mailroom.test', weight: 3 }, '127.0.0.3'] },
        'eu-west-1': { ips: ['127.0.0.4'] },
      },
      disabledIps: ['127.0.0.3'],
    },
  },
});
// Dozens of `mailroom` processes, each starting a runtime: about two minutes, more on a busy machine.
t.setTimeout(6 * 60_000);
t.teardown(() => app.close());
const { runtime } = app;
const env = {
  ...process.env,
  MAILROOM_ENV: 'test',
  MAILROOM_LOG_LEVEL: 'warn',
  MAILROOM_FROM_SOURCE: '1',
  MAILROOM_DATA_DIR: runtime.config.dataDir,
  MAILROOM_DATABASE_URL: runtime.config.database.url,
  MAILROOM_CONFIG: join(runtime.config.dataDir, 'mailroom.json'),
};

type Run = { code: number; stdout: string; stderr: string; json: any };
/** Runs `mailroom ...args`; resolves with the exit code instead of throwing on a failure. */
const mailroom = (...args: string[]): Promise<Run> =>
  new Promise((resolve) => {
    execFile(process.execPath, ['bin/mailroom.js', ...args], { env }, (err, stdout, stderr) => {
      const code = err ? Number((err as { code?: number }).code ?? 1) : 0;
      let json: unknown;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      resolve({ code, stdout, stderr, json });
    });
  });

const team = await app.createTeam('Queue');
const repository = new DeliveryRepository(runtime.db.knex);
const stateOf = async (emailId: string) => (await repository.ofEmail(emailId)).map((d) => d.state);
const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);

const toOne = await insertEmail(runtime, team.teamId, ['a@one.test', 'b@one.test'], twoHoursAgo);
await insertDeliveries(runtime, toOne, { createdAt: twoHoursAgo });
const toTwo = await insertEmail(runtime, team.teamId, ['c@two.test']);
const [deferred] = await insertDeliveries(runtime, toTwo, {
  state: 'deferred',
  attempts: 1,
  nextAttemptAt: new Date(Date.now() + 3600_000),
});
await insertAttempt(runtime, deferred!, 'deferred', '451 4.7.1 Try again later');
const done = await insertEmail(runtime, team.teamId, ['d@one.test']);
await insertDeliveries(runtime, done, { state: 'delivered', attempts: 1 });

t.test('status counts deliveries by state and by destination, with the age of the oldest', async (t) => {
  for (const args of [['queue'], ['queue', 'status']]) {
    const { code, json } = await mailroom(...args);
    t.equal(code, 0);
    t.match(json.states, { queued: 2, deferred: 1, delivered: 1, held: 0, sending: 0, bounced: 0 });
    const one = json.destinations.find((d: { domain: string }) => d.domain === 'one.test');
    t.match(one, { state: 'queued', count: 2, oldest: /^2h/ });
    t.ok(one.oldest_seconds >= 7200 && one.oldest_seconds < 7300, 'oldest in seconds too');
    t.match(
      json.destinations.find((d: { domain: string }) => d.domain === 'two.test'),
      { state: 'deferred', count: 1 },
    );
    t.notOk(
      json.destinations.some((d: { state: string }) => d.state === 'delivered'),
      'settled deliveries are counted, not listed per destination',
    );
    t.same(json.egress, { disabled_in_config: ['127.0.0.3'], disabled: [], resting: [] });
  }
});

t.test('a bad or missing filter is refused with exit code 1 and changes nothing', async (t) => {
  const cases: Array<[string[], RegExp]> = [
    [['queue', 'hold'], /at least one/],
    [['queue', 'hold', '--email', 'not-a-uuid'], /--email must be an email id/],
    [['queue', 'release', '--team', '42'], /--team must be a team id/],
    [['queue', 'retry', '--domain', 'someone@one.test'], /--domain must be a recipient domain/],
    [['queue', 'purge', '--yes'], /at least one/],
    [['queue', 'show', '--email', 'x'], /--email must be an email id/],
    [['queue', 'hold', '--state', 'queued'], /unknown option/],
  ];
  // Refusals touch nothing, so they run side by side (each is a process start).
  const runs = await Promise.all(cases.map(([args]) => mailroom(...args)));
  for (const [i, [args, message]] of cases.entries()) {
    const run = runs[i]!;
    t.equal(run.code, 1, args.join(' '));
    t.match(run.stderr, message, args.join(' '));
    t.equal(run.stdout, '');
  }
  t.same(await stateOf(toOne.id), ['queued', 'queued']);
});

t.test('show lists an email’s deliveries and attempts; --transcripts adds the SMTP conversation', async (t) => {
  const { code, json } = await mailroom('queue', 'show', '--email', toTwo.id);
  t.equal(code, 0);
  t.match(json.email, { id: toTwo.id, team_id: team.teamId, subject: 'Queued' });
  t.equal(json.deliveries.length, 1);
  t.match(json.deliveries[0], {
    recipient: 'c@two.test',
    state: 'deferred',
    attempts: 1,
    next_attempt_at: String,
    last_reply: null,
  });
  t.match(json.deliveries[0].attempt_log, [
    { outcome: 'deferred', mx_host: 'mx.example.test', egress_ip: '127.0.0.2', reply: '451 4.7.1 Try again later' },
  ]);
  t.notOk('transcript' in json.deliveries[0].attempt_log[0]);
  const full = await mailroom('queue', 'show', '--email', toTwo.id, '--transcripts');
  t.match(full.json.deliveries[0].attempt_log[0].transcript, /S: 451 4\.7\.1/);
  const missing = await mailroom('queue', 'show', '--email', '0190b2c4-0000-7000-8000-000000000000');
  t.equal(missing.code, 1);
  t.match(missing.stderr, /not_found/);
});

t.test('hold, release and retry move deliveries as their filters say', async (t) => {
  const held = await mailroom('queue', 'hold', '--domain', 'ONE.test');
  t.match(held.json, { action: 'hold', filter: { domain: 'one.test' }, affected: 2 });
  t.same(await stateOf(toOne.id), ['held', 'held']);
  t.same(await stateOf(done.id), ['delivered'], 'a settled delivery is never held');
  t.match((await mailroom('queue')).json.states, { held: 2, queued: 0 });

  t.match(
    (await mailroom('queue', 'retry', '--domain', 'one.test')).json,
    { affected: 0 },
    'held deliveries wait for release',
  );
  const released = await mailroom('queue', 'release', '--email', toOne.id, '--team', team.teamId);
  t.match(released.json, { action: 'release', affected: 2 });
  t.same(await stateOf(toOne.id), ['queued', 'queued']);

  const before = Date.now();
  const retried = await mailroom('queue', 'retry', '--team', team.teamId);
  t.match(retried.json, { action: 'retry', affected: 3 }, 'queued and deferred ones of the team');
  const [again] = await repository.ofEmail(toTwo.id);
  t.equal(again!.state, 'deferred');
  t.ok(
    again!.nextAttemptAt.getTime() <= Date.now() && again!.nextAttemptAt.getTime() >= before - 1000,
    'due now instead of in an hour',
  );
  const otherTeam = await mailroom('queue', 'hold', '--team', '0190b2c4-0000-7000-8000-000000000000');
  t.match(otherTeam.json, { affected: 0 });
});

t.test('purge refuses without --yes, and with it removes waiting deliveries and records email.failed', async (t) => {
  const refused = await mailroom('queue', 'purge', '--domain', 'one.test');
  t.equal(refused.code, 1);
  t.match(refused.stderr, /would remove 2 waiting/);
  t.match(refused.stderr, /--yes/);
  t.same(await stateOf(toOne.id), ['queued', 'queued'], 'nothing changed');

  await mailroom('queue', 'hold', '--email', toOne.id);
  const purged = await mailroom('queue', 'purge', '--domain', 'one.test', '--yes');
  t.equal(purged.code, 0);
  t.match(purged.json, { action: 'purge', filter: { domain: 'one.test' }, affected: 2 });
  t.same(await stateOf(toOne.id), [], 'held deliveries are purged too');
  t.same(await stateOf(done.id), ['delivered'], 'settled ones stay');
  t.same(await stateOf(toTwo.id), ['deferred'], 'other destinations stay');
  const failed = (await runtime.services.eventLog.list(team.teamId, { type: 'email.failed' })).filter(
    (e) => e.data.email_id === toOne.id,
  );
  t.same(failed.flatMap((e) => e.data.to as string[]).sort(), ['a@one.test', 'b@one.test']);
  t.equal((await runtime.services.deliveries.email(toOne.id))!.lastEvent, 'failed');
});

t.test('ip list, disable and enable round trip; unknown addresses are refused', async (t) => {
  const listed = await mailroom('ip', 'list');
  t.equal(listed.code, 0);
  const byAddress = (json: any, address: string) =>
    json.addresses.find((a: { address: string }) => a.address === address);
  t.match(byAddress(listed.json, '127.0.0.2'), {
    region: 'us-east-1',
    helo: 'out2.mailroom.test',
    weight: 3,
    in_use: true,
    disabled_in_config: false,
    disabled_by_operator: null,
    rests: [],
  });
  t.match(byAddress(listed.json, '127.0.0.3'), {
    helo: 'mail.mailroom.localhost',
    weight: 1,
    in_use: false,
    disabled_in_config: true,
  });
  t.match(byAddress(listed.json, '127.0.0.4'), { region: 'eu-west-1' });

  const disabled = await mailroom('ip', 'disable', '127.0.0.2', '--reason', 'listed at an RBL');
  t.match(disabled.json, { address: '127.0.0.2', regions: ['us-east-1'], disabled: true, reason: 'listed at an RBL' });
  t.match(byAddress((await mailroom('ip', 'list')).json, '127.0.0.2'), {
    in_use: false,
    disabled_by_operator: { reason: 'listed at an RBL' },
  });
  t.match((await mailroom('queue')).json.egress.disabled, [
    { address: '127.0.0.2', destination: '*', reason: 'listed at an RBL' },
  ]);
  t.ok((await runtime.services.deliveries.restingEgress('one.test')).has('127.0.0.2'), 'the MTA sees it out of use');

  await runtime.services.deliveries.strikeEgress(
    '127.0.0.2',
    'gmail.test',
    '554 5.7.1 Service unavailable; client host blocked',
    1,
    3600,
  );
  const rests = byAddress((await mailroom('ip', 'list')).json, '127.0.0.2').rests;
  t.match(rests, [{ destination: 'gmail.test', strikes: 1, remaining: /^(59m|1h)/, reason: /blocked/ }]);
  t.match((await mailroom('queue')).json.egress.resting, [{ address: '127.0.0.2', destination: 'gmail.test' }]);

  t.match((await mailroom('ip', 'enable', '127.0.0.2')).json, { address: '127.0.0.2', destination: null, cleared: 1 });
  const afterEnable = byAddress((await mailroom('ip', 'list')).json, '127.0.0.2');
  t.match(afterEnable, { in_use: true, disabled_by_operator: null });
  t.equal(afterEnable.rests.length, 1, 'enable alone leaves a destination rest in place');
  t.match((await mailroom('ip', 'enable', '127.0.0.2', '--destination', 'Gmail.test')).json, {
    destination: 'gmail.test',
    cleared: 1,
  });
  t.same(byAddress((await mailroom('ip', 'list')).json, '127.0.0.2').rests, []);
  t.match((await mailroom('ip', 'enable', '127.0.0.3')).json, { cleared: 0, still_disabled_in_config: true });

  for (const args of [
    ['ip', 'disable', '10.9.9.9'],
    ['ip', 'enable', '10.9.9.9'],
  ]) {
    const refused = await mailroom(...args);
    t.equal(refused.code, 1, args.join(' '));
    t.match(refused.stderr, /10\.9\.9\.9 is in no IP pool/);
  }
  t.equal((await runtime.db.knex('egress_blocks').where({ egress_ip: '10.9.9.9' })).length, 0);
});

t.test('hold-domain, holds, release-domain: a standing hold on a destination', async (t) => {
  const later = await insertEmail(runtime, team.teamId, ['d@three.test']);
  await insertDeliveries(runtime, later);
  const held = await mailroom('queue', 'hold-domain', 'THREE.test', '--reason', 'asked to pause');
  t.equal(held.code, 0, held.stderr);
  t.same(held.json, { action: 'hold-domain', domain: 'three.test', already_held: false, held: 1 });
  t.same(await stateOf(later.id), ['held']);
  t.match((await mailroom('queue', 'holds')).json, [
    { domain: 'three.test', reason: 'asked to pause', held_by: 'mailroom queue hold-domain' },
  ]);
  t.match((await mailroom('queue', 'hold-domain', 'three.test')).json, { already_held: true, held: 0 });

  const released = await mailroom('queue', 'release-domain', 'three.test');
  t.same(released.json, { action: 'release-domain', domain: 'three.test', released: 1 });
  t.same(await stateOf(later.id), ['queued']);
  t.same((await mailroom('queue', 'holds')).json, []);

  const notHeld = await mailroom('queue', 'release-domain', 'three.test');
  t.equal(notHeld.code, 1);
  t.match(notHeld.stderr, /no hold on three\.test/);
  const bad = await mailroom('queue', 'hold-domain', 'not a domain');
  t.equal(bad.code, 1);
  t.match(bad.stderr, /not a recipient domain name/);
});
