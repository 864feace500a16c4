import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { request, type HttpResponse } from '../helpers/http.js';
import { commandEnv } from '../helpers/process-env.js';
import { spawnMailroom, stopChild } from '../helpers/spawn-mailroom.js';
import { startTestApp } from '../helpers/test-app.js';
import { markedVerifiedDomain } from '../helpers/verified-domain.js';

/**
 * A `mailroom scheduler` killed with SIGKILL while it advances automation runs (right after a
 * non-send step committed, inside a send before its unit of work committed, right after a send
 * committed), then a new scheduler: every run completes, no step is lost (the contact_update took
 * effect, every step row is completed) and no email goes twice (one per send step per contact).
 */
const app = await startTestApp();
const children: ChildProcess[] = [];
t.teardown(async () => {
  await Promise.all(children.map((child) => stopChild(child, 'SIGKILL')));
  await app.close();
});
const { knex } = app.runtime.db;
const CONTACTS = 40;
// A dead worker's claims come back after 1 s instead of two minutes.
const configFile = join(app.runtime.config.dataDir, 'automations.json');
writeFileSync(configFile, JSON.stringify({ automations: { leaseMs: 1000 } }));
const env = {
  ...commandEnv({ url: app.runtime.config.database.url, dataDir: app.runtime.config.dataDir, drop: async () => {} }),
  MAILROOM_ENV: 'test',
  MAILROOM_CONFIG: configFile,
};

type Team = { teamId: string; token: string };
const call = (team: Team, method: string, path: string, body?: unknown) =>
  request(app.url, path, { method, token: team.token, body });
const created = (t: Test, res: HttpResponse) => {
  t.ok(res.status < 300, `setup ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
  return res.body.id as string;
};
const count = async (table: string, where: Record<string, unknown>) =>
  Number(((await knex(table).where(where).count({ n: '*' }).first()) as { n: unknown }).n);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type StepRow = { run_id: string; step_key: string; status: string; email_id: string | null };
type EmailRow = { id: string; to_addresses: string; subject: string; template_id: string | null };

/** A sending team with the event, two published templates, an enabled automation and its contacts. */
async function flow(t: Test, n: number) {
  const team = await app.createTeam(`Crash ${n}`, 'unlimited');
  const domain = `crash${n}.test`;
  await markedVerifiedDomain(app, team.teamId, domain);
  created(t, await call(team, 'POST', '/events', { name: 'user.signed_up' }));
  const template = async (name: string) => {
    const id = created(
      t,
      await call(team, 'POST', '/templates', {
        name,
        subject: `Step ${name}`,
        html: `<p>Step ${name}</p>`,
        from: `Acme <hello@${domain}>`,
      }),
    );
    created(t, await call(team, 'POST', `/templates/${id}/publish`));
    return id;
  };
  const templateA = await template('A');
  const templateB = await template('B');
  const automation = created(
    t,
    await call(team, 'POST', '/automations', {
      name: 'Onboarding',
      status: 'enabled',
      steps: [
        { key: 'start', type: 'trigger', config: { event_name: 'user.signed_up' } },
        { key: 'mail_a', type: 'send_email', config: { template: { id: templateA } } },
        { key: 'rename', type: 'contact_update', config: { first_name: 'Onboarded' } },
        { key: 'mail_b', type: 'send_email', config: { template: { id: templateB } } },
      ],
      connections: [
        { from: 'start', to: 'mail_a' },
        { from: 'mail_a', to: 'rename' },
        { from: 'rename', to: 'mail_b' },
      ],
    }),
  );
  const contacts: Array<{ id: string; email: string }> = [];
  for (let i = 0; i < CONTACTS; i += 20)
    contacts.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(20, CONTACTS - i) }, async (_, k) => {
          const email = `c${i + k}@dest${n}.test`;
          const res = await call(team, 'POST', '/contacts', { email, first_name: 'Fresh' });
          return { id: created(t, res), email };
        }),
      )),
    );
  return { team, templateA, templateB, automation, contacts };
}

/** Waits for the child to exit; its signal (or a failure after the deadline, the child killed). */
async function exitOf(child: ChildProcess, ms: number): Promise<NodeJS.Signals | null | 'timeout'> {
  if (child.exitCode !== null || child.signalCode !== null) return child.signalCode;
  let timer: NodeJS.Timeout | undefined;
  const result = await Promise.race([
    new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal))),
    new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), ms))),
  ]);
  clearTimeout(timer);
  if (result === 'timeout') await stopChild(child, 'SIGKILL');
  return result;
}

const points = ['automation.after-step-commit', 'automation.before-send-commit', 'automation.after-send-commit'];
let teams = 0;

for (const point of points) {
  t.test(`killed at ${point}: a new scheduler completes every run, each email once`, async (t) => {
    const { team, templateA, templateB, automation, contacts } = await flow(t, ++teams);
    const byEmail = new Map(contacts.map((c) => [c.email, c.id]));
    for (let i = 0; i < contacts.length; i += 20)
      await Promise.all(
        contacts.slice(i, i + 20).map(async (c) => {
          const res = await call(team, 'POST', '/events/send', {
            event: 'user.signed_up',
            contact_id: c.id,
            payload: {},
          });
          t.equal(res.status, 202, 'event accepted');
        }),
      );
    t.equal(await count('automation_runs', { automation_id: automation }), 0, 'runs start at the next tick');

    const killed = spawnMailroom('scheduler', { ...env, MAILROOM_CRASH_POINT: point }, 'never');
    killed.ready.catch(() => undefined);
    children.push(killed.child);
    t.equal(await exitOf(killed.child, 60_000), 'SIGKILL', 'the scheduler died at the crash point');

    // What committed before the kill.
    const runsAtKill = await knex('automation_runs').where({ automation_id: automation });
    t.equal(runsAtKill.length, CONTACTS, 'enrolment committed a run per contact before the kill');
    t.ok(
      runsAtKill.some((r) => r.status === 'running'),
      'runs were left mid-way',
    );
    const stepsAtKill = (await knex('automation_run_steps').whereIn(
      'run_id',
      runsAtKill.map((r) => r.id),
    )) as StepRow[];
    const emailsAtKill = (await knex('emails').where({ team_id: team.teamId })) as EmailRow[];
    const namedAtKill = stepsAtKill.filter((s) => s.email_id !== null).map((s) => s.email_id);
    t.same(
      emailsAtKill.map((e) => e.id).sort(),
      [...namedAtKill].sort(),
      'every committed email is named by its committed step row, and the reverse',
    );
    const renamedAtKill = stepsAtKill.filter((s) => s.step_key === 'rename' && s.status === 'completed');
    t.comment(
      `at the kill: ${emailsAtKill.length} emails, ${renamedAtKill.length} contact_updates, ` +
        `${runsAtKill.filter((r) => r.status === 'completed').length} runs completed`,
    );
    if (point === 'automation.before-send-commit') {
      t.equal(emailsAtKill.length, 0, 'the email being prepared never committed');
      t.equal(renamedAtKill.length, 0, 'no run got past its first send');
    } else {
      t.ok(emailsAtKill.length >= 1, `an email committed before the kill (${emailsAtKill.length})`);
      t.ok(emailsAtKill.length < CONTACTS * 2, `not every email was sent before the kill (${emailsAtKill.length})`);
    }
    if (point === 'automation.after-step-commit') {
      t.ok(renamedAtKill.length >= 1, 'a contact_update committed before the kill');
      const renamedRuns = new Set(renamedAtKill.map((s) => s.run_id));
      const renamedContacts = runsAtKill.filter((r) => renamedRuns.has(r.id)).map((r) => r.contact_id as string);
      const names = await knex('contacts').whereIn('id', renamedContacts).pluck('first_name');
      t.same(
        names,
        renamedContacts.map(() => 'Onboarded'),
        'the committed contact_update is on the contact',
      );
      const parkedOnB = runsAtKill.filter((r) => renamedRuns.has(r.id) && r.status === 'running');
      t.ok(
        parkedOnB.every((r) => r.next_step_key === 'mail_b'),
        'a run killed after its contact_update goes on at mail_b',
      );
    }
    if (point === 'automation.after-send-commit') {
      const sentRuns = new Set(stepsAtKill.filter((s) => s.email_id !== null).map((s) => s.run_id));
      t.ok(
        runsAtKill
          .filter((r) => sentRuns.has(r.id) && r.status === 'running')
          .every((r) => r.next_step_key === 'rename' || r.next_step_key === 'mail_b'),
        'the run moved past the send with its email',
      );
    }

    const next = spawnMailroom('scheduler', env, 'never');
    next.ready.catch(() => undefined);
    children.push(next.child);
    const deadline = Date.now() + 60_000;
    for (;;) {
      const done = await count('automation_runs', { automation_id: automation, status: 'completed' });
      if (done === CONTACTS) break;
      if (next.child.exitCode !== null || next.child.signalCode !== null)
        throw new Error(`the second scheduler exited (${next.child.exitCode ?? next.child.signalCode})`);
      if (Date.now() > deadline) {
        const statuses = await knex('automation_runs')
          .where({ automation_id: automation })
          .select('status', 'next_step_key', 'error');
        throw new Error(
          `runs did not complete in 60 s: ${JSON.stringify(statuses.filter((r) => r.status !== 'completed'))}`,
        );
      }
      await sleep(200);
    }
    await stopChild(next.child);

    // Every run completed, through the API.
    const runs: Array<{ id: string; status: string }> = [];
    let after: string | undefined;
    for (;;) {
      const page = await call(
        team,
        'GET',
        `/automations/${automation}/runs?limit=100${after ? `&after=${after}` : ''}`,
      );
      t.equal(page.status, 200);
      runs.push(...page.body.data);
      if (!page.body.has_more) break;
      after = page.body.data.at(-1).id;
    }
    t.equal(runs.length, CONTACTS, 'one run per contact');
    t.same(
      runs.map((r) => r.status),
      runs.map(() => 'completed'),
      'every run completed',
    );

    // Exactly two emails per contact: one from each template.
    const emails = (await knex('emails').where({ team_id: team.teamId })) as EmailRow[];
    t.equal(emails.length, CONTACTS * 2, 'two emails per contact, none twice');
    const perContact = new Map<string, EmailRow[]>();
    for (const email of emails) {
      const to = JSON.parse(email.to_addresses) as string[];
      t.equal(to.length, 1);
      const contact = byEmail.get(to[0]!);
      t.ok(contact, `the email goes to a contact of the flow (${to[0]})`);
      perContact.set(contact!, [...(perContact.get(contact!) ?? []), email]);
    }
    t.equal(perContact.size, CONTACTS, 'every contact got mail');
    for (const [contact, mail] of perContact)
      t.same(
        mail.map((m) => m.template_id).sort(),
        [templateA, templateB].sort(),
        `contact ${contact}: template A once and template B once`,
      );
    const subjects = emails.map((e) => e.subject).sort();
    t.same(subjects, [...contacts.map(() => 'Step A'), ...contacts.map(() => 'Step B')]);

    // Each run's step rows: all completed, the sends naming distinct emails of this team.
    const emailIds = new Set(emails.map((e) => e.id));
    const named = new Set<string>();
    const runContacts = new Map(
      (await knex('automation_runs').where({ automation_id: automation })).map((r) => [
        r.id as string,
        r.contact_id as string,
      ]),
    );
    t.same(new Set(runContacts.values()), new Set(contacts.map((c) => c.id)), 'the runs are the contacts’ runs');
    for (const run of runs) {
      const detail = await call(team, 'GET', `/automations/${automation}/runs/${run.id}`);
      t.equal(detail.status, 200);
      t.match(detail.body, { id: run.id, status: 'completed', error: null, contact_id: runContacts.get(run.id) });
      const steps = detail.body.steps as Array<{ key: string; status: string; output: { email_id: string } | null }>;
      t.same(
        steps.map((s) => [s.key, s.status]),
        [
          ['start', 'completed'],
          ['mail_a', 'completed'],
          ['rename', 'completed'],
          ['mail_b', 'completed'],
        ],
        `run ${run.id}: every step completed`,
      );
      t.equal(steps[0]!.output, null);
      t.equal(steps[2]!.output, null);
      for (const send of [steps[1]!, steps[3]!]) {
        const id = send.output?.email_id;
        t.ok(id && emailIds.has(id), `${send.key} names an email of the team`);
        t.notOk(named.has(id!), `${send.key}'s email is no other step's`);
        named.add(id!);
      }
      const mail = perContact.get(runContacts.get(run.id)!)!;
      t.equal(
        mail.find((m) => m.id === steps[1]!.output!.email_id)?.template_id,
        templateA,
        'mail_a sent template A to the run’s contact',
      );
      t.equal(
        mail.find((m) => m.id === steps[3]!.output!.email_id)?.template_id,
        templateB,
        'mail_b sent template B to the run’s contact',
      );
    }
    t.equal(named.size, CONTACTS * 2, 'every email is named by exactly one send step');
    const rows = (await knex('automation_run_steps').whereIn('run_id', [...runContacts.keys()])) as StepRow[];
    t.equal(rows.length, CONTACTS * 4, 'four step rows per run, none extra');

    // The contact_update took effect on every contact.
    const names = await knex('contacts')
      .whereIn(
        'id',
        contacts.map((c) => c.id),
      )
      .pluck('first_name');
    t.same(
      names,
      contacts.map(() => 'Onboarded'),
      'every contact was updated',
    );
    t.equal(
      await count('events', { team_id: team.teamId, type: 'automation.run.completed' }),
      CONTACTS,
      'completed recorded once per run',
    );
  });
}
