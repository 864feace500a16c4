import type { Delivery } from '../../core/sending/deliveries/delivery.types.js';
import type { Email } from '../../core/sending/emails/email.types.js';
import { acceptEmail, TLS_TRANSCRIPT } from './email-activity.js';
import type { TestApp } from './test-app.js';

/**
 * An email with a history worth diagnosing, driven through the same services as the MTA: a
 * deferral whose reply quotes the recipient URL-encoded, a delivery over STARTTLS, a hard bounce
 * quoting the recipient (address and local part) in reply and transcript, an open and a click on
 * a link carrying an address, and a rest of the egress address whose reason names another address.
 */
/** Hands over and claims the email's deliveries, by recipient. */
export async function claimDeliveries(app: TestApp, email: Email): Promise<Map<string, Delivery>> {
  const services = app.runtime.services;
  await services.deliveries.handOver(200, 'transactional');
  const claimed = await services.deliveries.claim('transactional', 50, 'test-worker', 60_000);
  return new Map(claimed.filter((d) => d.emailId === email.id).map((d) => [d.recipient, d]));
}

/** The story of the email under diagnosis: one deferral, a bounce, a delivery over TLS, an open and a click. */
export async function emailWithHistory(
  app: TestApp,
  team: { token: string; domain: string },
  story: { DELIVERED: string; BOUNCED: string; SUBJECT: string; TEXT: string; HTML: string },
): Promise<Email> {
  const { DELIVERED, BOUNCED, SUBJECT, TEXT, HTML } = story;
  const services = app.runtime.services;
  const knex = app.runtime.db.knex;
  const email = await acceptEmail(app, team, [DELIVERED, BOUNCED], { subject: SUBJECT, text: TEXT, html: HTML });
  let deliveries = await claimDeliveries(app, email);
  await services.deliveries.deferred(
    email,
    [deliveries.get(BOUNCED)!],
    {
      egressIp: '127.0.0.1',
      mxHost: 'mx.example.org',
      reply: `451 4.7.1 Greylisted, see https://postmaster.example.org/?rcpt=${encodeURIComponent(BOUNCED)}`,
      transcript: `C: RCPT TO:<${BOUNCED}>\nS: 451 4.7.1 Greylisted`,
      durationMs: 12,
    },
    new Date(),
    'TransientCommunicationFailure',
  );
  await services.deliveries.delivered(email, [deliveries.get(DELIVERED)!], {
    egressIp: '127.0.0.1',
    mxHost: 'mx.example.net',
    reply: '250 2.0.0 Ok: queued as 4ABC',
    transcript: TLS_TRANSCRIPT,
    durationMs: 42,
  });
  deliveries = new Map(
    (await services.deliveries.claim('transactional', 50, 'test-worker', 60_000))
      .filter((d) => d.emailId === email.id)
      .map((d) => [d.recipient, d]),
  );
  const reply = `550 5.1.1 <${BOUNCED}>: Recipient address rejected: User ${BOUNCED.split('@')[0]} unknown in virtual mailbox table`;
  await services.deliveries.bounced(
    email,
    [deliveries.get(BOUNCED)!],
    {
      egressIp: '127.0.0.1',
      mxHost: 'mx.example.org',
      reply,
      transcript: [
        '* connecting to mx.example.org [127.0.0.1]:25',
        'C: MAIL FROM:<bounces+4417@diagnose.test>',
        'S: 250 2.1.0 Ok',
        `C: RCPT TO:<${BOUNCED}>`,
        `S: ${reply}`,
      ].join('\n'),
      durationMs: 17,
    },
    {
      type: 'Permanent',
      subType: 'General',
      message: 'The recipient does not exist',
      diagnosticCode: [`smtp; ${reply}`],
    },
    true,
  );
  const at = new Date().toISOString();
  await services.emailTransitions.record(knex, email, 'email.opened', {
    open: { ipAddress: '192.0.2.1', timestamp: at, userAgent: 'Mail' },
  });
  await services.emailTransitions.record(knex, email, 'email.clicked', {
    click: {
      ipAddress: '192.0.2.1',
      link: `https://shop.example.com/offer?u=${encodeURIComponent(DELIVERED)}`,
      timestamp: at,
      userAgent: 'Mail',
    },
  });
  await knex('egress_blocks').insert({
    egress_ip: '127.0.0.1',
    destination: 'example.org',
    strikes: 3,
    blocked_until: new Date(Date.now() + 3_600_000),
    last_reply: '554 5.7.1 Client host [127.0.0.1] blocked using zen.spamhaus.org; rcpt=other.person@elsewhere.example',
    updated_at: new Date(),
  });
  return email;
}
