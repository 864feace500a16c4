import { randomBytes } from 'node:crypto';
import t, { type Test } from 'tap';
import { startDeliveryWorker } from '../../mta/queue/delivery-worker.js';
import { startMtaFixture } from '../helpers/mta-fixture.js';
import { freePort, PostfixSmtpSink, smtpSinkOrSkip } from '../helpers/postfix-smtp-sink.js';

/**
 * Remote faults against Postfix's smtp-sink (an SMTP server we did not write): a hang-up after
 * the final dot, 421 at MAIL or RCPT, 4xx and 5xx at RCPT and after DATA, a slow reader. Each
 * ends in the documented state (README, "Queue and IP pools") through the real path, and the
 * sink's dumps show what arrived: nothing lost, at most one duplicate.
 *
 * Each destination gets its own smtp-sink on 127.0.0.40-49, all on one port (`mta.port`).
 * A test that switches the sink to accepting holds the delivery first and releases it after,
 * so the retry never reaches the old server while it is being replaced.
 */
const binary = smtpSinkOrSkip(t);
if (binary) await suite(binary);

type Events = Array<{ type: string; data: Record<string, any> }>;
const count = (events: Events, type: string) => events.filter((e) => e.type === type).length;

async function suite(binary: string): Promise<void> {
  const port = await freePort('127.0.0.40');
  // The first retry comes 3 s after a failure: time to hold the delivery before it. Expiry
  // after 8 s leaves room for the 3 s socket time-out plus the retry, and still ends the
  // 4xx-until-expiry case within a few attempts.
  const fx = await startMtaFixture({
    sinkHosts: [],
    port,
    mta: { maxQueueSeconds: 8, retrySchedule: [3], socketTimeoutMs: 3000 },
  });
  t.teardown(() => fx.close());
  const deliveries = fx.app.runtime.services.deliveries;
  const suppressions = fx.app.runtime.services.suppressions;

  /** A destination domain whose one MX is a fresh smtp-sink with `flags` on `host`. */
  const destination = async (t: Test, domain: string, host: string, flags: string[]) => {
    fx.dns.add(
      { type: 'MX', name: domain, exchange: `mx.${domain}`, priority: 10 },
      { type: 'A', name: `mx.${domain}`, address: host },
    );
    const sink = await PostfixSmtpSink.start({ binary, host, port, flags });
    t.teardown(() => sink.stop());
    return sink;
  };
  const deliveryOf = async (emailId: string) => (await deliveries.repository.ofEmail(emailId))[0]!;
  const attemptsOf = async (deliveryId: string) =>
    (await deliveries.repository.attemptsOf(deliveryId)).map((a) => ({
      outcome: String(a.outcome),
      reply: String(a.reply ?? ''),
    }));

  /** The remote server recovers: from now on the sink accepts everything. */
  const recover = async (t: Test, sink: PostfixSmtpSink, ...emailIds: string[]) => {
    for (const emailId of emailIds)
      t.ok((await deliveries.hold({ emailId })) >= 1, 'held while the server is replaced');
    await sink.switchTo([]);
    for (const emailId of emailIds) t.ok((await deliveries.release({ emailId })) >= 1, 'released: due at once');
  };

  /** Every recipient deferred after one attempt whose recorded reply matches `reply`. */
  const expectDeferred = async (t: Test, emailId: string, reply: RegExp) => {
    await fx.waitForEvents(emailId, ['email.delivery_delayed']);
    for (const delivery of await deliveries.repository.ofEmail(emailId)) {
      t.equal(delivery.state, 'deferred', `${delivery.recipient}: deferred`);
      t.equal(delivery.attempts, 1, `${delivery.recipient}: after one attempt`);
      t.match(
        await attemptsOf(delivery.id),
        [{ outcome: 'deferred', reply }],
        `${delivery.recipient}: the attempt records what happened`,
      );
    }
  };

  /** Every recipient delivered exactly once, by the second attempt. */
  const expectDeliveredAfterRetry = async (t: Test, emailId: string) => {
    const events = await fx.waitForEvents(emailId, ['email.delivered']);
    t.equal(count(events, 'email.delivery_delayed'), 1, 'one delivery_delayed');
    t.equal(count(events, 'email.delivered'), 1, 'email.delivered exactly once');
    t.equal(count(events, 'email.bounced'), 0, 'no bounce');
    for (const delivery of await deliveries.repository.ofEmail(emailId)) {
      t.equal(delivery.state, 'delivered', `${delivery.recipient}: delivered`);
      t.equal(delivery.attempts, 2, `${delivery.recipient}: by the retry`);
    }
  };

  t.test('hang-up after the final dot without a reply: deferred, then delivered; at most one duplicate', async (t) => {
    const sink = await destination(t, 'hangup.test', '127.0.0.40', ['-q', '.']);
    const id = await fx.send({ to: ['user@hangup.test'] });
    await expectDeferred(t, id, /closed the connection/);
    t.equal(
      sink.count('<user@hangup.test>'),
      1,
      'the server had the message when it hung up: we cannot know, so we retry',
    );
    await recover(t, sink, id);
    await expectDeliveredAfterRetry(t, id);
    const copies = sink.count('<user@hangup.test>');
    t.ok(copies >= 1 && copies <= 2, `the server saw the message at most twice (${copies})`);
  });

  for (const [stage, host] of [
    ['mail', '127.0.0.41'],
    ['rcpt', '127.0.0.42'],
  ] as const) {
    t.test(
      `421 at ${stage.toUpperCase()}: both recipients deferred with the reply, then delivered when the server accepts`,
      async (t) => {
        const domain = `${stage}421.test`;
        const sink = await destination(t, domain, host, [
          '-r',
          stage,
          '-b',
          '421 4.3.2 Service not available, closing transmission channel',
        ]);
        const id = await fx.send({ to: [`a@${domain}`, `b@${domain}`] });
        await expectDeferred(t, id, /^421 4\.3\.2/);
        t.equal(sink.dumped().length, 0, 'no message data was sent');
        await recover(t, sink, id);
        await expectDeliveredAfterRetry(t, id);
        t.equal(sink.count(`<a@${domain}>`), 1, 'arrived once');
      },
    );
  }

  t.test('421 at MAIL on a connection carrying three messages: all deferred, then each delivered once', async (t) => {
    const sink = await destination(t, 'busy.test', '127.0.0.49', [
      '-r',
      'mail',
      '-b',
      '421 4.3.2 Service not available, closing transmission channel',
    ]);
    // Sent while no worker runs, so one worker claims all three and sends them over one connection.
    await Promise.all(fx.workers.map((worker) => worker.stop()));
    const ids = [
      await fx.send({ to: ['a@busy.test'] }),
      await fx.send({ to: ['b@busy.test'] }),
      await fx.send({ to: ['c@busy.test'] }),
    ];
    fx.workers.push(startDeliveryWorker(fx.app.runtime));
    for (const id of ids) await fx.waitForEvents(id, ['email.delivery_delayed']);
    const attempts = await Promise.all(ids.map(async (id) => (await attemptsOf((await deliveryOf(id)).id))[0]!.reply));
    t.equal(attempts.filter((reply) => /^421 4\.3\.2/.test(reply)).length, 1, 'the message in flight got the 421');
    t.equal(
      attempts.filter((reply) => /ended before this message was sent/.test(reply)).length,
      2,
      'the others say they were never offered',
    );
    await recover(t, sink, ...ids);
    for (const id of ids) await expectDeliveredAfterRetry(t, id);
    t.same(
      ['a', 'b', 'c'].map((r) => sink.count(`<${r}@busy.test>`)),
      [1, 1, 1],
      'each arrived once',
    );
  });

  t.test('4xx at RCPT until expiry: deferred, then a Transient bounce; no suppression', async (t) => {
    const sink = await destination(t, 'rcpt4xx.test', '127.0.0.43', ['-r', 'rcpt', '-b', '452 4.2.2 Mailbox full']);
    const id = await fx.send({ to: ['user@rcpt4xx.test'] });
    const events = await fx.waitForEvents(id, ['email.bounced'], 30_000);
    t.equal(count(events, 'email.delivery_delayed'), 1, 'delivery_delayed once');
    t.equal(count(events, 'email.delivered'), 0);
    const bounce = events.find((e) => e.type === 'email.bounced')!.data.bounce;
    t.equal(bounce.type, 'Transient');
    t.match(bounce.diagnosticCode[0], /452 4\.2\.2/);
    const delivery = await deliveryOf(id);
    t.equal(delivery.state, 'bounced');
    t.ok(delivery.attempts >= 2, `retried before giving up (${delivery.attempts} attempts)`);
    t.equal(
      (await suppressions.suppressedAmong(fx.teamId, ['user@rcpt4xx.test'])).size,
      0,
      'a temporary refusal does not suppress',
    );
    t.equal(sink.count('<user@rcpt4xx.test>'), 0, 'no message data was sent');
  });

  t.test('5xx at RCPT (mailbox unknown): a Permanent bounce at once, and the address is suppressed', async (t) => {
    const sink = await destination(t, 'rcpt5xx.test', '127.0.0.44', [
      '-f',
      'rcpt',
      '-B',
      '550 5.1.1 Recipient address rejected: User unknown in local recipient table',
    ]);
    const id = await fx.send({ to: ['user@rcpt5xx.test'] });
    const events = await fx.waitForEvents(id, ['email.bounced']);
    t.equal(count(events, 'email.delivery_delayed'), 0, 'not retried');
    const bounce = events.find((e) => e.type === 'email.bounced')!.data.bounce;
    t.equal(bounce.type, 'Permanent');
    t.match(bounce.diagnosticCode[0], /550 5\.1\.1/);
    const delivery = await deliveryOf(id);
    t.equal(delivery.state, 'bounced');
    t.equal(delivery.attempts, 1);
    // The suppression is written just after the bounce commits, so it may trail the event.
    const suppressed = () =>
      suppressions.suppressedAmong(fx.teamId, ['user@rcpt5xx.test']).then((found) => found.size === 1);
    t.ok(await fx.waitFor(suppressed, 'the suppression of user@rcpt5xx.test', 5000), 'hard bounce: suppressed');
    t.equal(sink.count('<user@rcpt5xx.test>'), 0, 'no message data was sent');
  });

  t.test('4xx after DATA: deferred, then delivered when the server accepts', async (t) => {
    const sink = await destination(t, 'data4xx.test', '127.0.0.45', [
      '-r',
      '.',
      '-b',
      '451 4.3.0 Error: queue file write error',
    ]);
    const id = await fx.send({ to: ['user@data4xx.test'] });
    await expectDeferred(t, id, /^451 4\.3\.0/);
    await recover(t, sink, id);
    await expectDeliveredAfterRetry(t, id);
    // The refused copy is the server's to discard (it answered 4xx): only the second one counts.
    t.equal(sink.count('<user@data4xx.test>'), 2, 'sent twice: refused, then accepted');
  });

  t.test('5xx after DATA: a Permanent bounce at once; no suppression (the address is fine)', async (t) => {
    await destination(t, 'data5xx.test', '127.0.0.46', [
      '-f',
      '.',
      '-B',
      '554 5.6.0 Message rejected: content not accepted',
    ]);
    const id = await fx.send({ to: ['user@data5xx.test'] });
    const events = await fx.waitForEvents(id, ['email.bounced']);
    t.equal(count(events, 'email.delivery_delayed'), 0, 'not retried');
    const bounce = events.find((e) => e.type === 'email.bounced')!.data.bounce;
    t.equal(bounce.type, 'Permanent');
    t.match(bounce.diagnosticCode[0], /554 5\.6\.0/);
    const delivery = await deliveryOf(id);
    t.equal(delivery.state, 'bounced');
    t.equal(delivery.attempts, 1);
    t.equal(
      (await suppressions.suppressedAmong(fx.teamId, ['user@data5xx.test'])).size,
      0,
      'content refusals do not suppress the recipient',
    );
  });

  // The slow reader: `smtp-sink -w N` waits N seconds before it answers DATA, then reads the
  // message. About 2 MB on the wire: a 1.5 MB attachment, base64-encoded.
  const large = (to: string) => ({
    to: [to],
    attachments: [{ filename: 'large.bin', content: randomBytes(1_500_000).toString('base64') }],
  });
  /** The dumps holding a complete copy: at least 2 MB and the MIME closing boundary. */
  const complete = (sink: PostfixSmtpSink, to: string) =>
    sink.dumped().filter((dump) => {
      const boundary = /boundary="?([^";\r\n]+)/i.exec(dump)?.[1];
      return (
        dump.includes(`<${to}>`) &&
        dump.length > 2_000_000 &&
        boundary !== undefined &&
        dump.includes(`--${boundary}--`)
      );
    }).length;

  t.test('slow reader within the socket time-out: a 2 MB message is delivered whole', async (t) => {
    const sink = await destination(t, 'slow.test', '127.0.0.47', ['-w', '1']);
    const id = await fx.send(large('user@slow.test'));
    const events = await fx.waitForEvents(id, ['email.delivered']);
    t.equal(count(events, 'email.delivery_delayed'), 0, 'no deferral');
    t.equal((await deliveryOf(id)).attempts, 1);
    t.equal(complete(sink, 'user@slow.test'), 1, 'one complete copy arrived');
  });

  t.test('slow reader beyond the socket time-out: deferred (time-out), then delivered whole', async (t) => {
    const sink = await destination(t, 'slower.test', '127.0.0.48', ['-w', '5']);
    const id = await fx.send(large('user@slower.test'));
    await expectDeferred(t, id, /timed out/);
    await recover(t, sink, id);
    await expectDeliveredAfterRetry(t, id);
    t.equal(complete(sink, 'user@slower.test'), 1, 'one complete copy arrived');
  });
}
