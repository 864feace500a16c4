import t, { type Test } from 'tap';
import { movableClock } from '../../helpers/clock.js';
import { request, type HttpResponse } from '../../helpers/http.js';
import { startTestApp } from '../../helpers/test-app.js';
import { markedVerifiedDomain } from '../../helpers/verified-domain.js';

/**
 * Platform triggers (svc:contact.created, svc:topic.subscribed, svc:segment.entered, the
 * svc:email.* family), trigger pinning to the custom event definition, List-Unsubscribe and
 * skipping on automation emails, and the retry limit for a step that keeps throwing.
 */
const clock = movableClock();
const app = await startTestApp({ clock });
t.teardown(() => app.close());
const knex = app.runtime.db.knex;
const services = app.runtime.services;
const tick = () => services.automationRuns.tick(60_000);

type Team = { teamId: string; token: string };
const call = (team: Team, method: string, path: string, body?: unknown) =>
  request(app.url, path, { method, token: team.token, body });
const ok = (t: Test, res: HttpResponse) => {
  t.ok(res.status < 300, `setup ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
  return res.body.id as string;
};
const runsOf = async (automationId: string) =>
  (await knex('automation_runs').where({ automation_id: automationId }).orderBy('id')) as Array<{
    id: string;
    contact_id: string;
    status: string;
    error: string | null;
    attempts: number;
    wake_at: unknown;
  }>;
/** An automation on `trigger` whose one step sets the contact's last name to `mark`. */
const marking = (name: string, trigger: Record<string, unknown>, mark: string) => ({
  name,
  status: 'enabled',
  steps: [
    { key: 'start', type: 'trigger', config: trigger },
    { key: 'mark', type: 'contact_update', config: { last_name: mark } },
  ],
  connections: [{ from: 'start', to: 'mark' }],
});

t.test(
  'svc:contact.created: a contact created through the API starts a run; one created before does not',
  async (t) => {
    const team = await app.createTeam('Created', 'unlimited');
    const before = ok(t, await call(team, 'POST', '/contacts', { email: 'before@example.com' }));
    const automation = ok(
      t,
      await call(team, 'POST', '/automations', marking('On create', { event_name: 'svc:contact.created' }, 'New')),
    );
    const after = ok(t, await call(team, 'POST', '/contacts', { email: 'after@example.com' }));
    // Hitting an existing address is an update, not a creation.
    t.ok((await call(team, 'POST', '/contacts', { email: 'after@example.com', first_name: 'A' })).status < 300);
    await tick();
    const runs = await runsOf(automation);
    t.same(
      runs.map((r) => [r.contact_id, r.status]),
      [[after, 'completed']],
    );
    t.equal((await call(team, 'GET', `/contacts/${after}`)).body.last_name, 'New');
    t.equal((await call(team, 'GET', `/contacts/${before}`)).body.last_name, null);
    const occurrence = await knex('custom_event_occurrences').where({ team_id: team.teamId }).first();
    t.match(occurrence, { event_name: 'svc:contact.created', definition_id: null, contact_id: after });

    // Disabled: no more occurrences are written at all.
    t.equal((await call(team, 'PATCH', `/automations/${automation}`, { status: 'disabled' })).status, 200);
    await call(team, 'POST', '/contacts', { email: 'later@example.com' });
    t.equal((await knex('custom_event_occurrences').where({ team_id: team.teamId })).length, 1);
  },
);

t.test(
  'svc:topic.subscribed: an opt-in to the named topic starts a run; an opt-out or another topic does not',
  async (t) => {
    const team = await app.createTeam('Topics', 'unlimited');
    const news = ok(t, await call(team, 'POST', '/topics', { name: 'News', default_subscription: 'opt_out' }));
    const deals = ok(t, await call(team, 'POST', '/topics', { name: 'Deals', default_subscription: 'opt_out' }));
    const one = ok(
      t,
      await call(
        team,
        'POST',
        '/automations',
        marking('News opt-in', { event_name: 'svc:topic.subscribed', topic_id: news }, 'News'),
      ),
    );
    const any = ok(
      t,
      await call(team, 'POST', '/automations', marking('Any opt-in', { event_name: 'svc:topic.subscribed' }, 'Any')),
    );
    const ada = ok(t, await call(team, 'POST', '/contacts', { email: 'ada@example.com' }));
    const bob = ok(t, await call(team, 'POST', '/contacts', { email: 'bob@example.com' }));
    const set = (contact: string, id: string, subscription: string) =>
      call(team, 'PATCH', `/contacts/${contact}/topics`, { topics: [{ id, subscription }] });
    t.equal((await set(ada, news, 'opt_in')).status, 200);
    t.equal((await set(bob, deals, 'opt_in')).status, 200);
    t.equal((await set(bob, news, 'opt_out')).status, 200);
    await tick();
    t.same(
      (await runsOf(one)).map((r) => r.contact_id),
      [ada],
      'the News automation: only the News opt-in',
    );
    t.same((await runsOf(any)).map((r) => r.contact_id).sort(), [ada, bob].sort(), 'any topic: both opt-ins');
  },
);

t.test(
  'svc:segment.entered: contacts who join after the watch began, by filter or by hand; leaving and coming back is entering again',
  async (t) => {
    const team = await app.createTeam('Segments', 'unlimited');
    const segment = ok(
      t,
      await call(team, 'POST', '/segments', {
        name: 'VIPs',
        filter: { all: [{ field: 'first_name', op: 'eq', value: 'Vip' }] },
      }),
    );
    const early = ok(t, await call(team, 'POST', '/contacts', { email: 'early@example.com', first_name: 'Vip' }));
    const later = ok(t, await call(team, 'POST', '/contacts', { email: 'later@example.com', first_name: 'Plain' }));
    const byHand = ok(t, await call(team, 'POST', '/contacts', { email: 'hand@example.com', first_name: 'Plain' }));
    const automation = ok(
      t,
      await call(
        team,
        'POST',
        '/automations',
        marking('Entered', { event_name: 'svc:segment.entered', segment_id: segment }, 'Entered'),
      ),
    );
    t.match(await services.segmentEntries.check(), { entered: 0 }, 'the first look records members without firing');
    t.equal((await knex('automation_segment_entries').where({ segment_id: segment })).length, 1);

    t.equal((await call(team, 'PATCH', `/contacts/${later}`, { first_name: 'Vip' })).status, 200);
    t.equal((await call(team, 'POST', `/contacts/${byHand}/segments/${segment}`)).status, 200);
    t.match(await services.segmentEntries.check(), { entered: 2 });
    t.match(await services.segmentEntries.check(), { entered: 0 }, 'entered once, not at every look');
    await tick();
    t.same((await runsOf(automation)).map((r) => r.contact_id).sort(), [later, byHand].sort());
    t.notOk(
      (await runsOf(automation)).some((r) => r.contact_id === early),
      'a member from before never fires',
    );

    // Leaves, then comes back: a second entry.
    await call(team, 'PATCH', `/contacts/${later}`, { first_name: 'Plain' });
    await services.segmentEntries.check();
    await call(team, 'PATCH', `/contacts/${later}`, { first_name: 'Vip' });
    t.match(await services.segmentEntries.check(), { entered: 1 });
    await tick();
    t.equal((await runsOf(automation)).filter((r) => r.contact_id === later).length, 2);

    // No trigger names it any more: the watch and its entries go.
    await call(team, 'POST', `/automations/${automation}/stop`);
    await services.segmentEntries.check();
    t.equal((await knex('automation_segment_watches').where({ segment_id: segment })).length, 0);
    t.equal((await knex('automation_segment_entries').where({ segment_id: segment })).length, 0);
    const job = (await import('../../../scheduler/jobs/index.js')).jobs.find((j) => j.name === 'watch-segment-entries');
    t.ok(job, 'the scheduler runs the watch');
  },
);

/** A team that can send, with a published template, contacts and an automation on user.signed_up that mails. */
async function mailingTeam(t: Test, name: string) {
  const team = await app.createTeam(name, 'unlimited');
  const domain = `${name.toLowerCase()}.example.com`;
  await markedVerifiedDomain(app, team.teamId, domain);
  const template = ok(
    t,
    await call(team, 'POST', '/templates', {
      name: 'hello',
      subject: 'Hello',
      html: '<p>Hi</p>',
      from: `A <a@${domain}>`,
    }),
  );
  ok(t, await call(team, 'POST', `/templates/${template}/publish`));
  ok(t, await call(team, 'POST', '/events', { name: 'user.signed_up' }));
  const automation = ok(
    t,
    await call(team, 'POST', '/automations', {
      name: 'Mail',
      status: 'enabled',
      steps: [
        { key: 'start', type: 'trigger', config: { event_name: 'user.signed_up' } },
        { key: 'mail', type: 'send_email', config: { template: { id: template } } },
      ],
      connections: [{ from: 'start', to: 'mail' }],
    }),
  );
  const signUp = (contact: string) =>
    call(team, 'POST', '/events/send', { event: 'user.signed_up', contact_id: contact, payload: {} });
  return { team, template, automation, signUp };
}

t.test('automation emails carry List-Unsubscribe; an unsubscribed contact is skipped, not failed', async (t) => {
  const { team, automation, signUp } = await mailingTeam(t, 'Headers');
  const ada = ok(t, await call(team, 'POST', '/contacts', { email: 'ada@example.com' }));
  const gone = ok(t, await call(team, 'POST', '/contacts', { email: 'gone@example.com', unsubscribed: true }));
  t.equal((await signUp(ada)).status, 202);
  t.equal((await signUp(gone)).status, 202);
  await tick();
  const emails = await knex('emails').where({ team_id: team.teamId });
  t.equal(emails.length, 1, 'only the subscribed contact is mailed');
  const headers = JSON.parse(emails[0].headers) as Record<string, string>;
  t.match(headers['List-Unsubscribe'], /^<http:\/\/[^>]+\/unsubscribe\/[A-Za-z0-9_-]+>$/);
  t.equal(headers['List-Unsubscribe-Post'], 'List-Unsubscribe=One-Click');
  // The link works: a one-click POST unsubscribes Ada.
  const url = headers['List-Unsubscribe']!.slice(1, -1);
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'List-Unsubscribe=One-Click',
  });
  t.ok(res.status < 300, `one-click answered ${res.status}`);
  t.equal((await call(team, 'GET', `/contacts/${ada}`)).body.unsubscribed, true);

  const skippedRun = (await runsOf(automation)).find((r) => r.contact_id === gone)!;
  t.equal(skippedRun.status, 'completed', 'the run goes on past the skipped step');
  const detail = await call(team, 'GET', `/automations/${automation}/runs/${skippedRun.id}`);
  t.match(detail.body.steps[1], {
    key: 'mail',
    status: 'skipped',
    output: { skipped_reason: 'the contact has unsubscribed' },
    error: null,
  });
});

t.test('svc:email.*: a recipient who is a contact starts a run; an automation’s own emails start none', async (t) => {
  const { team, signUp } = await mailingTeam(t, 'Mails');
  const ada = ok(t, await call(team, 'POST', '/contacts', { email: 'ada@example.com' }));
  const onScheduled = ok(
    t,
    await call(team, 'POST', '/automations', marking('Scheduled', { event_name: 'svc:email.scheduled' }, 'Sched')),
  );
  const onDelivered = ok(
    t,
    await call(team, 'POST', '/automations', marking('Delivered', { event_name: 'svc:email.delivered' }, 'Deliv')),
  );
  // An application's email to Ada (scheduled: email.scheduled is recorded at acceptance) and one to a stranger.
  const domain = 'mails.example.com';
  for (const to of ['Ada <ada@example.com>', 'stranger@example.com'])
    t.equal(
      (
        await call(team, 'POST', '/emails', {
          from: `A <a@${domain}>`,
          to,
          subject: 'Later',
          text: 'Hi',
          scheduled_at: 'in 1 hour',
        })
      ).status,
      200,
    );
  // The automation's own email to Ada, then its delivery as the MTA records it.
  await signUp(ada);
  await tick();
  const own = (await knex('automation_run_steps').whereNotNull('email_id').first()).email_id as string;
  const ownEmail = await knex('emails').where({ id: own }).first();
  t.ok(ownEmail, 'the automation mailed Ada');
  await knex.transaction((trx) =>
    services.eventLog.recordMany(trx, [
      {
        teamId: team.teamId,
        type: 'email.delivered',
        data: { email_id: own, to: ['ada@example.com'], subject: 'Hello' },
      },
    ]),
  );
  await tick();
  t.same(
    (await runsOf(onScheduled)).map((r) => [r.contact_id, r.status]),
    [[ada, 'completed']],
    'the scheduled email to Ada, not the stranger',
  );
  t.same(await runsOf(onDelivered), [], 'the automation’s own delivery starts nothing');
  const occurrences = await knex('custom_event_occurrences').where({
    team_id: team.teamId,
    event_name: 'svc:email.delivered',
  });
  t.equal(occurrences.length, 1, 'the occurrence was written, and dropped at enrolment');
  t.not(occurrences[0].processed_at, null);
});

t.test(
  'a definition deleted and created again under its name: the old version never fires, a new version does',
  async (t) => {
    const { team, automation, signUp } = await mailingTeam(t, 'Pinned');
    const ada = ok(t, await call(team, 'POST', '/contacts', { email: 'ada@example.com' }));
    const first = (await call(team, 'GET', '/events/user.signed_up')).body.id as string;
    t.equal((await call(team, 'DELETE', `/events/${first}`)).status, 200);
    ok(t, await call(team, 'POST', '/events', { name: 'user.signed_up' }));
    t.equal((await signUp(ada)).status, 202);
    await tick();
    t.same(await runsOf(automation), [], 'the version names the deleted definition');
    const graph = (await call(team, 'GET', `/automations/${automation}`)).body;
    t.equal(
      (await call(team, 'PATCH', `/automations/${automation}`, { steps: graph.steps, connections: graph.connections }))
        .status,
      200,
    );
    await signUp(ada);
    await tick();
    t.same(
      (await runsOf(automation)).map((r) => r.status),
      ['completed'],
      'republished against the new definition',
    );
  },
);

t.test('a step that keeps throwing is retried with a growing wait, then its run fails', async (t) => {
  const team = await app.createTeam('Throws', 'unlimited');
  ok(t, await call(team, 'POST', '/events', { name: 'user.signed_up' }));
  const segment = ok(t, await call(team, 'POST', '/segments', { name: 'Hand picked' }));
  const automation = ok(
    t,
    await call(team, 'POST', '/automations', {
      name: 'Throws',
      status: 'enabled',
      steps: [
        { key: 'start', type: 'trigger', config: { event_name: 'user.signed_up' } },
        { key: 'join', type: 'add_to_segment', config: { segment_id: segment } },
      ],
      connections: [{ from: 'start', to: 'join' }],
    }),
  );
  const ada = ok(t, await call(team, 'POST', '/contacts', { email: 'ada@example.com' }));
  await call(team, 'POST', '/events/send', { event: 'user.signed_up', contact_id: ada, payload: {} });
  // The database loses the table the step writes: not a refusal, an unexpected error.
  await knex.schema.renameTable('segment_members', 'segment_members_away');
  t.teardown(async () => {
    if (await knex.schema.hasTable('segment_members_away'))
      await knex.schema.renameTable('segment_members_away', 'segment_members');
  });
  const errors = console.error;
  console.error = () => undefined;
  try {
    for (let attempt = 1; attempt <= 5; attempt++) {
      await tick();
      const [run] = await runsOf(automation);
      if (attempt < 5) {
        t.match(run, { status: 'running', attempts: attempt }, `attempt ${attempt} counted`);
        t.match(run!.error, new RegExp(`step join failed ${attempt} time`));
        await tick();
        t.equal((await runsOf(automation))[0]!.attempts, attempt, 'not retried before its wait');
        clock.advanceTo(clock.now().getTime() + 10_000 * attempt * attempt + 1000);
      } else {
        t.match(run, { status: 'failed' }, 'failed after five attempts');
        t.match(run!.error, /step join failed 5 times/);
      }
    }
  } finally {
    console.error = errors;
  }
  await knex.schema.renameTable('segment_members_away', 'segment_members');
  const failed = await knex('events').where({ team_id: team.teamId, type: 'automation.run.failed' });
  t.equal(failed.length, 1, 'automation.run.failed once');
});
