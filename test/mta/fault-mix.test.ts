import t from 'tap';
import type { SinkFault } from '../helpers/smtp-sink.js';
import { startMtaFixture } from '../helpers/mta-fixture.js';
import { seededRandom } from '../helpers/seeded-random.js';

/**
 * Many emails at once, several recipients each, every recipient with its own server behaviour
 * drawn at random (fixed seed): accepted, unknown (550 at RCPT), greylisted once (451 at RCPT)
 * or refused by policy (554 at RCPT) at one of two servers, or a mailbox-simulator address, or
 * a domain with a null MX. Deliveries of one email share a transaction and a connection, so outcomes meet in
 * the same batch and the same settle group; besides, the first three transactions to reach the
 * end of DATA get a 451 there (every accepted recipient of those is retried together). Every
 * delivery must end in the state its recipient called for, each message arrive once per
 * accepted recipient, and the events match.
 */
const SEED = Number(process.env.FAULT_MIX_SEED ?? 5);
const EMAILS = 24;

const fx = await startMtaFixture({
  sinkHosts: ['127.0.0.60', '127.0.0.61'],
  mta: { retrySchedule: [1], maxQueueSeconds: 60 },
});
t.teardown(() => fx.close());
fx.dns.add(
  { type: 'MX', name: 'mix.test', exchange: 'mx.mix.test', priority: 10 },
  { type: 'A', name: 'mx.mix.test', address: '127.0.0.60' },
  { type: 'MX', name: 'other.test', exchange: 'mx.other.test', priority: 10 },
  { type: 'A', name: 'mx.other.test', address: '127.0.0.61' },
  { type: 'MX', name: 'nowhere.test', exchange: '.', priority: 0 },
);
const [sink, otherSink] = fx.sinks as [(typeof fx.sinks)[0], (typeof fx.sinks)[0]];
const simulator = fx.app.runtime.config.sandbox.simulatorDomain;

const random = seededRandom(SEED);

type Behaviour =
  'accept' | 'unknown-user' | 'greylist-once' | 'policy-block' | 'simulated-delivery' | 'simulated-bounce' | 'null-mx';
const BEHAVIOURS: Behaviour[] = [
  'accept',
  'accept',
  'unknown-user',
  'greylist-once',
  'policy-block',
  'simulated-delivery',
  'simulated-bounce',
  'null-mx',
];
const expectedState: Record<Behaviour, 'delivered' | 'bounced'> = {
  accept: 'delivered',
  'unknown-user': 'bounced',
  'greylist-once': 'delivered',
  'policy-block': 'bounced',
  'simulated-delivery': 'delivered',
  'simulated-bounce': 'bounced',
  'null-mx': 'bounced',
};
/** Behaviours decided by a real server (the sinks), which then hold what they accepted. */
const AT_A_SINK = new Set<Behaviour>(['accept', 'unknown-user', 'greylist-once', 'policy-block']);

function addressFor(e: number, r: number, behaviour: Behaviour): string {
  if (behaviour === 'simulated-delivery') return `delivered+e${e}r${r}@${simulator}`;
  if (behaviour === 'simulated-bounce') return `bounced+e${e}r${r}@${simulator}`;
  if (behaviour === 'null-mx') return `e${e}r${r}@nowhere.test`;
  return `e${e}r${r}@${r % 2 ? 'other.test' : 'mix.test'}`;
}

function faultFor(recipient: string, behaviour: Behaviour): SinkFault | null {
  if (behaviour === 'unknown-user')
    return { stage: 'rcpt', code: 550, message: '5.1.1 <user> User unknown in virtual mailbox table', recipient };
  if (behaviour === 'greylist-once')
    return { stage: 'rcpt', code: 451, message: '4.7.1 Greylisted, please try again later', recipient, times: 1 };
  if (behaviour === 'policy-block')
    return { stage: 'rcpt', code: 554, message: '5.7.1 Message rejected due to content restrictions', recipient };
  return null;
}

t.test(
  `${EMAILS} emails with mixed recipient outcomes (seed ${SEED}): every delivery settles as its server said`,
  async (t) => {
    const plan = new Map<string, { recipients: Map<string, Behaviour> }>();
    sink.faults.push({ stage: 'data', code: 451, message: '4.3.0 Temporary failure, please try again', times: 3 });
    const sends: Array<Promise<void>> = [];
    for (let e = 0; e < EMAILS; e++) {
      const count = 1 + Math.floor(random() * 4);
      const recipients = new Map<string, Behaviour>();
      for (let r = 0; r < count; r++) {
        const behaviour = BEHAVIOURS[Math.floor(random() * BEHAVIOURS.length)]!;
        const address = addressFor(e, r, behaviour);
        recipients.set(address, behaviour);
        const fault = faultFor(address, behaviour);
        if (fault) (address.endsWith('@other.test') ? otherSink : sink).faults.push(fault);
      }
      sends.push(
        fx.send({ to: [...recipients.keys()], subject: `mix ${e}`, headers: { 'X-Mix': String(e) } }).then((id) => {
          plan.set(id, { recipients });
        }),
      );
    }
    await Promise.all(sends);
    t.equal(plan.size, EMAILS, 'all accepted');

    const deliveries = fx.app.runtime.services.deliveries.repository;
    const settled = await fx.waitFor(
      async () => {
        const all = await Promise.all([...plan.keys()].map(async (id) => [id, await deliveries.ofEmail(id)] as const));
        return all.every(
          ([, rows]) => rows.length > 0 && rows.every((d) => d.state === 'delivered' || d.state === 'bounced'),
        )
          ? all
          : undefined;
      },
      'every delivery settled',
      90_000,
    );

    let checked = 0;
    for (const [id, rows] of settled) {
      const entry = plan.get(id)!;
      for (const row of rows) {
        const behaviour = entry.recipients.get(row.recipient)!;
        t.equal(row.state, expectedState[behaviour], `${row.recipient} (${behaviour})`);
        checked++;
      }
      const accepted = [...entry.recipients]
        .filter(([, b]) => expectedState[b] === 'delivered')
        .map(([address]) => address);
      const acceptedBySink = [...entry.recipients]
        .filter(([, b]) => AT_A_SINK.has(b) && expectedState[b] === 'delivered')
        .map(([address]) => address);
      const arrivals = [...sink.messages, ...otherSink.messages].filter((m) =>
        m.to.some((to) => entry.recipients.has(to)),
      );
      const arrivedFor = arrivals.flatMap((m) => m.to).sort();
      t.same(
        arrivedFor,
        [...acceptedBySink].sort(),
        `email ${id}: each recipient a server accepted got the message once, and nothing left for the others`,
      );
      const events = (await fx.app.runtime.services.eventLog.list(fx.teamId, { limit: 1000 })).filter(
        (e) => e.data.email_id === id,
      );
      const deliveredTo = events
        .filter((e) => e.type === 'email.delivered')
        .flatMap((e) => e.data.to as string[])
        .sort();
      const bouncedTo = events
        .filter((e) => e.type === 'email.bounced')
        .flatMap((e) => e.data.to as string[])
        .sort();
      t.same(deliveredTo, [...accepted].sort(), `email ${id}: email.delivered names exactly the accepted recipients`);
      t.same(
        bouncedTo,
        [...entry.recipients]
          .filter(([, b]) => expectedState[b] === 'bounced')
          .map(([a]) => a)
          .sort(),
        `email ${id}: email.bounced names exactly the refused ones`,
      );
      const email = await fx.app.runtime.services.deliveries.email(id);
      t.ok(email && ['delivered', 'bounced'].includes(email.lastEvent), `email ${id}: last_event ${email?.lastEvent}`);
    }
    t.ok(checked >= EMAILS, `${checked} deliveries checked`);
    t.equal(sink.faults.find((f) => f.stage === 'data')?.times, 0, 'the three refusals after DATA were used');
  },
);
