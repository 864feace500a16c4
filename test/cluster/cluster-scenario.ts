import type { Knex } from 'knex';
import type { Test } from 'tap';
import type { request as httpRequest } from '../helpers/http.js';
import type { SmtpSink } from '../helpers/smtp-sink.js';
import type { TestApp } from '../helpers/test-app.js';
import type { GaleraMember } from '../helpers/cluster/galera.js';
import type { MailroomNode, NodeProcessName } from '../helpers/cluster/mailroom-node.js';

export type ScenarioDeps = {
  team: { teamId: string; token: string };
  control: TestApp;
  nodes: MailroomNode[];
  apiUrls: string[];
  members: GaleraMember[];
  /** One connection pool per member (the rows as each member has them). */
  observers: Knex[];
  sink: SmtpSink;
  logs: Array<{ node: string; process: NodeProcessName; entry: Record<string, unknown> }>;
  failOverRedis(): Promise<void>;
  redisPrimary(): Promise<[string, string]>;
  doctor(node: MailroomNode): Promise<Array<{ check: string; status: string; detail: string }>>;
  request: typeof httpRequest;
};

const TOTAL = 2000;
const SENDERS = 12;
const BROADCAST_MEMBERS = 400;
const AUTOMATION_CONTACTS = 60;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const subjectOf = (data: Buffer) => /^Subject: (.*)$/im.exec(data.subarray(0, 4096).toString('utf8'))?.[1]?.trim();

/**
 * 2,000 keyed sends spread over both nodes' APIs while a broadcast fans out and automation runs
 * advance; in the middle, every process of one node is killed (SIGKILL), then the Galera member
 * the other node writes to is stopped (so the surviving node loses its database for a while),
 * then both come back; later Sentinel fails Redis over. A client that gets no answer or a 503
 * sends again with the same Idempotency-Key, to the other node.
 */
export async function clusterScenario(t: Test, deps: ScenarioDeps): Promise<void> {
  const { team, control, nodes, apiUrls, members, observers, sink, logs, request } = deps;
  const [observer] = observers.slice(2) as [Knex];
  const api = (method: string, path: string, body?: unknown) =>
    request(control.url, path, { method, token: team.token, body });
  const count = async (query: Knex.QueryBuilder) =>
    Number(((await query.count({ n: '*' }).first()) as { n: unknown }).n);
  const setupOk = (res: { status: number; text: string }, what: string) => {
    if (res.status >= 300) throw new Error(`${what}: ${res.status} ${res.text}`);
  };

  // A broadcast to a segment and an automation, to be running when the node dies.
  setupOk(
    await api('PATCH', '/team', {
      sender_name: 'Cluster',
      postal_address: { line1: '1 Main St', city: 'Springfield', postal_code: '12345', country: 'US' },
    }),
    'team',
  );
  for (let i = 0; i < BROADCAST_MEMBERS; i += 25)
    await Promise.all(
      Array.from({ length: Math.min(25, BROADCAST_MEMBERS - i) }, async (_, k) =>
        setupOk(await api('POST', '/contacts', { email: `member${i + k}@sink.test` }), 'contact'),
      ),
    );
  const segment = await api('POST', '/segments', {
    name: 'Broadcast members',
    filter: { all: [{ field: 'email', op: 'contains', value: 'member' }] },
  });
  setupOk(segment, 'segment');
  setupOk(await api('POST', '/events', { name: 'user.signed_up' }), 'event');
  const template = await api('POST', '/templates', {
    name: 'Welcome',
    subject: 'welcome',
    html: '<p>Welcome</p>',
    from: 'Cluster <hello@sender.test>',
  });
  setupOk(template, 'template');
  setupOk(await api('POST', `/templates/${template.body.id}/publish`), 'publish');
  const automation = await api('POST', '/automations', {
    name: 'Welcome',
    status: 'enabled',
    steps: [
      { key: 'start', type: 'trigger', config: { event_name: 'user.signed_up' } },
      { key: 'welcome', type: 'send_email', config: { template: { id: template.body.id } } },
    ],
    connections: [{ from: 'start', to: 'welcome' }],
  });
  setupOk(automation, 'automation');
  const automationContacts: string[] = [];
  for (let i = 0; i < AUTOMATION_CONTACTS; i += 20)
    automationContacts.push(
      ...(await Promise.all(
        Array.from({ length: 20 }, async (_, k) => {
          const res = await api('POST', '/contacts', { email: `joiner${i + k}@sink.test` });
          setupOk(res, 'contact');
          return res.body.id as string;
        }),
      )),
    );

  // The client: every send has its Idempotency-Key; no answer or a 503 → the same request to the
  // other node, with backoff. A 409 (the same key in flight) → again later.
  const acked = new Map<number, string>();
  const outcomes = { retriedAfterNoAnswer: 0, retriedAfter503: 0, retriedAfter409: 0 };
  const unexpected: string[] = [];
  const replays = { same: 0, different: [] as string[] };
  const started = Date.now();
  const sendOne = async (i: number) => {
    const body = {
      from: 'Cluster <hello@sender.test>',
      to: [`r${i}@sink.test`],
      subject: `cluster ${i}`,
      text: `message ${i}`,
    };
    const headers = { 'idempotency-key': `cluster-${i}` };
    let node = i % 2;
    for (let attempt = 0; ; attempt++) {
      if (Date.now() - started > 15 * 60_000) throw new Error(`send ${i} never acknowledged`);
      const res = await request(apiUrls[node]!, '/emails', { method: 'POST', token: team.token, body, headers }).catch(
        () => null,
      );
      if (res?.status === 200) {
        acked.set(i, res.body.id as string);
        if (i % 20 === 0) {
          // The same request through the other node: the first email, replayed.
          const again = await request(apiUrls[1 - node]!, '/emails', {
            method: 'POST',
            token: team.token,
            body,
            headers,
          }).catch(() => null);
          if (again?.status === 200) {
            if (again.body.id === res.body.id) replays.same++;
            else replays.different.push(`${i}: ${res.body.id} then ${again.body.id}`);
          }
        }
        return;
      }
      if (res === null) outcomes.retriedAfterNoAnswer++;
      else if (res.status === 503) outcomes.retriedAfter503++;
      else if (res.status === 409) outcomes.retriedAfter409++;
      else {
        unexpected.push(`send ${i}: ${res.status} ${res.text.slice(0, 300)}`);
        return;
      }
      node = 1 - node;
      await sleep(Math.min(2000, 50 * 2 ** Math.min(attempt, 6)));
    }
  };
  let next = 0;
  const senders = Promise.all(
    Array.from({ length: SENDERS }, async () => {
      while (next < TOTAL) await sendOne(next++);
    }),
  );
  const waitForAcks = async (n: number) => {
    while (acked.size < n) await sleep(50);
  };

  // The automation's events, then the broadcast; the kill comes once its fan-out is under way.
  await waitForAcks(540);
  for (const contactId of automationContacts)
    setupOk(
      await api('POST', '/events/send', { event: 'user.signed_up', contact_id: contactId, payload: {} }),
      'event',
    );
  const broadcast = await api('POST', '/broadcasts', {
    segment_id: segment.body.id,
    from: 'Cluster <news@sender.test>',
    subject: 'broadcast',
    text: 'Hello {{{EMAIL}}}',
    send: true,
  });
  setupOk(broadcast, 'broadcast');
  const recipients = () => count(observer('broadcast_recipients').where({ broadcast_id: broadcast.body.id }));
  while ((await recipients()) === 0) await sleep(20);

  // The kill: the node holding the broadcast's fan-out.
  const fanOut = (await observer('job_leases').where({ name: 'fan-out-broadcasts' }).first('holder')) as
    { holder: string } | undefined;
  const victim = nodes.find((node) => fanOut?.holder.startsWith(`${node.name}:`)) ?? nodes[0]!;
  const survivor = nodes.find((node) => node !== victim)!;
  const sendingAt = async () => count(observer('deliveries').where({ state: 'sending' }));
  await victim.kill();
  const recipientsBefore = await recipients();
  const killedAt = Date.now();
  t.ok(recipientsBefore < BROADCAST_MEMBERS, `the kill came in the middle of the fan-out (${recipientsBefore} done)`);
  const inFlightAtKill = await sendingAt();
  t.comment(
    `killed ${victim.name} (kill -9 of api, mta, scheduler) at ${acked.size} acknowledged sends; ` +
      `${inFlightAtKill} deliveries were being sent; broadcast at ${recipientsBefore}/${BROADCAST_MEMBERS}`,
  );

  // The broadcast goes on from the survivor: its fan-out lease comes free when the dead
  // process's lease expires, its claimed pages when their lease does.
  let broadcastSentAt = 0;
  const broadcastDone = (async () => {
    for (;;) {
      const res = await api('GET', `/broadcasts/${broadcast.body.id}`);
      if (res.body?.status === 'sent') return (broadcastSentAt = Date.now());
      await sleep(250);
    }
  })();

  // The member the survivor writes to stops for a while (its node answers 503 meanwhile), then
  // rejoins by incremental state transfer; then the dead node comes back.
  await waitForAcks(1000);
  const survivorMember = members[nodes.indexOf(survivor)]!;
  const inFlightAtStop = await sendingAt();
  await survivorMember.stop();
  t.comment(`stopped Galera member ${survivorMember.name} (${survivor.name}'s) at ${acked.size} acknowledged sends`);
  await sleep(8000);
  const other = members.find((member) => member !== survivorMember)!;
  t.equal(await other.status('wsrep_cluster_size'), '2', 'the two other members go on');
  await survivorMember.start();
  t.equal(await survivorMember.status('wsrep_local_state_comment'), 'Synced', 'the member rejoined and synced');
  await victim.start();
  t.comment(`${victim.name} restarted ${Math.round((Date.now() - killedAt) / 1000)} s after the kill`);

  // Redis fails over to the replica (Sentinel), sends going on.
  await waitForAcks(1500);
  const primaryBefore = await deps.redisPrimary();
  await deps.failOverRedis();
  for (let i = 0; i < 100; i++) {
    if ((await deps.redisPrimary())[1] !== primaryBefore[1]) break;
    await sleep(200);
  }
  const primaryAfter = await deps.redisPrimary();
  t.not(primaryAfter[1], primaryBefore[1], `Sentinel moved the primary from ${primaryBefore[1]} to ${primaryAfter[1]}`);

  await senders;
  const sendSeconds = (Date.now() - started) / 1000;
  t.equal(acked.size, TOTAL, 'every send was acknowledged in the end');
  t.same(unexpected, [], 'no answer other than 200, 409 or 503 (no 500)');
  t.same(replays.different, [], 'a replay through the other node answers the first email');
  t.ok(replays.same > 50, `${replays.same} replays through the other node answered the same email`);

  // Everything acknowledged arrives.
  const deadline = Date.now() + 8 * 60_000;
  const received = () => {
    const bySubject = new Map<string, number>();
    for (const message of sink.messages) {
      const subject = subjectOf(message.data) ?? '';
      bySubject.set(subject, (bySubject.get(subject) ?? 0) + 1);
    }
    return bySubject;
  };
  let missing: number[] = [];
  for (;;) {
    const bySubject = received();
    missing = [...acked.keys()].filter((i) => !bySubject.has(`cluster ${i}`));
    const others = sink.messages.filter((m) => m.to.some((to) => /^(member|joiner)\d+@/.test(to))).length;
    if (missing.length === 0 && others >= BROADCAST_MEMBERS + AUTOMATION_CONTACTS && broadcastSentAt) break;
    if (Date.now() > deadline) break;
    await sleep(500);
  }
  await Promise.race([broadcastDone, sleep(1000)]);
  t.same(missing.slice(0, 20), [], `every acknowledged send was delivered (${missing.length} missing)`);

  const bySubject = received();
  const duplicates = [...bySubject.entries()].filter(([subject, n]) => subject.startsWith('cluster ') && n > 1);
  const extra = duplicates.reduce((sum, [, n]) => sum + n - 1, 0);
  const [{ n: emailRows }] = (await observer('emails').where('subject', 'like', 'cluster %').count({ n: '*' })) as [
    { n: number | string },
  ];
  t.equal(Number(emailRows), TOTAL, 'one email per Idempotency-Key, no more');
  const doubled = (await observer('emails')
    .select('subject')
    .where('subject', 'like', 'cluster %')
    .groupBy('subject')
    .havingRaw('COUNT(*) > 1')) as unknown[];
  t.same(doubled, [], 'no key made two emails');
  t.ok(
    extra <= inFlightAtKill + inFlightAtStop,
    `${extra} message(s) delivered twice, at most what was being sent at the kill and the stop (${inFlightAtKill} + ${inFlightAtStop})`,
  );

  const broadcastTo = sink.messages.filter((m) => m.to.some((to) => /^member\d+@/.test(to)));
  t.equal(new Set(broadcastTo.flatMap((m) => m.to)).size, BROADCAST_MEMBERS, 'every broadcast member got it');
  t.ok(
    broadcastSentAt > 0,
    `the broadcast finished ${Math.round((broadcastSentAt - killedAt) / 1000)} s after the kill`,
  );
  const runs = (await observer('automation_runs')
    .where({ automation_id: automation.body.id })
    .select('status')) as Array<{ status: string }>;
  t.equal(runs.length, AUTOMATION_CONTACTS, 'one run per event');
  t.same(
    runs.filter((run) => run.status !== 'completed'),
    [],
    'every automation run completed',
  );
  const automationTo = sink.messages.filter((m) => m.to.some((to) => /^joiner\d+@/.test(to)));
  t.equal(new Set(automationTo.flatMap((m) => m.to)).size, AUTOMATION_CONTACTS, "every run's email arrived");

  const egress = new Set(sink.messages.map((m) => m.remoteAddress));
  for (const node of nodes)
    t.ok(egress.has(node.host.address), `${node.name} delivered from its own address ${node.host.address}`);

  // Each scheduled job ran once per tick across both nodes.
  const runsByTick = new Map<string, string[]>();
  for (const { node, entry } of logs)
    if (entry.msg === 'job finished' && typeof entry.tick === 'string') {
      const key = `${String(entry.job)} ${entry.tick}`;
      runsByTick.set(key, [...(runsByTick.get(key) ?? []), node]);
    }
  const twice = [...runsByTick.entries()].filter(([, ran]) => ran.length > 1);
  // How many ticks fall in the scenario depends on how long it ran (a quick run saw 12): enough
  // to mean something, whatever the machine's speed.
  t.ok(runsByTick.size >= 5, `${runsByTick.size} job runs for a tick were logged`);
  t.same(twice.slice(0, 10), [], 'no job ran twice for one tick');
  // Which node takes a tick is a race (both timers fire on the second; the first commit wins), so
  // one node may take every tick while both are up: what must hold is that the schedule went on
  // from the survivor while the victim was dead, and that the victim's scheduler came back.
  const ranBy = (name: string) => [...runsByTick.values()].filter((ran) => ran.includes(name)).length;
  t.comment(nodes.map((node) => `${node.name} ran ${ranBy(node.name)} ticks`).join(', '));
  const tickTime = (key: string) => Date.parse(key.slice(key.indexOf(' ') + 1));
  const survivorAfterKill = [...runsByTick.entries()].filter(
    ([key, ran]) => ran.includes(survivor.name) && tickTime(key) > killedAt,
  );
  t.ok(survivorAfterKill.length > 0, `${survivor.name} ran ${survivorAfterKill.length} ticks after the kill`);
  const schedulerStarts = logs.filter(
    ({ node, process: proc, entry }) =>
      node === victim.name && proc === 'scheduler' && entry.msg === 'scheduler started',
  );
  t.equal(schedulerStarts.length, 2, `${victim.name}'s scheduler started again after the kill`);

  // The members agree.
  for (const member of members)
    t.equal(await member.status('wsrep_cluster_size'), '3', `${member.name}: three members`);
  const counts = [];
  for (const k of observers) {
    await k.raw('SET SESSION wsrep_sync_wait = 1');
    counts.push(await count(k('emails')));
  }
  t.equal(new Set(counts).size, 1, `every member holds the same ${counts[0]} emails`);

  const doctor = await deps.doctor(survivor);
  const galera = doctor.filter((entry) => entry.check.startsWith('galera_'));
  t.same(
    galera.map((entry) => [entry.check, entry.status]),
    [
      ['galera_cluster', 'ok'],
      ['galera_settings', 'ok'],
      ['galera_sync_wait', 'ok'],
    ],
    `mailroom doctor on a node: ${galera.map((entry) => entry.detail).join('; ')}`,
  );

  t.comment(
    `${TOTAL} sends in ${sendSeconds.toFixed(0)} s through the kill and the stop; retried after no answer ` +
      `${outcomes.retriedAfterNoAnswer}, after 503 ${outcomes.retriedAfter503}, after 409 ${outcomes.retriedAfter409}; ` +
      `${extra} duplicate deliveries; ${sink.messages.length} messages at the sink`,
  );
}
