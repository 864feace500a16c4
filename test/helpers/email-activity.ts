import { sendEmailSchema } from '../../core/sending/emails/email.schemas.js';
import type { Email } from '../../core/sending/emails/email.types.js';
import type { TestApp } from './test-app.js';
import { markedVerifiedDomain } from './verified-domain.js';

/** A transcript as nodemailer logs a session upgraded with STARTTLS (the MTA's Transcript). */
export const TLS_TRANSCRIPT = [
  '* Connection established to 127.0.0.1:25',
  'S: 220 mx.example.net ESMTP',
  'C: EHLO mail.mailroom.localhost',
  'S: 250-mx.example.net',
  'S: 250 STARTTLS',
  'C: STARTTLS',
  'S: 220 2.0.0 Ready to start TLS',
  '* Connection upgraded with STARTTLS',
  'C: MAIL FROM:<bounces@sender.test>',
  'S: 250 2.1.0 Ok',
].join('\n');

/** A team with a verified domain (no DNS: marked verified) and its key. */
export async function sendingTeam(app: TestApp, label: string) {
  const team = await app.createTeam(label, 'unlimited');
  const domain = await markedVerifiedDomain(app, team.teamId, `${label}.test`);
  return { ...team, domainId: domain.id, domain: `${label}.test` };
}

/** An email accepted through the ordinary path (as POST /emails), still queued. */
export async function acceptEmail(
  app: TestApp,
  team: { token: string; domain: string },
  to: string[],
  extra: Record<string, unknown> = {},
): Promise<Email> {
  const auth = await app.runtime.services.apiKeys.authenticate(team.token);
  const { id } = await app.runtime.services.emailAcceptance.accept(
    auth,
    sendEmailSchema.parse({ from: `hello@${team.domain}`, to, subject: 'Activity', text: 'hi', ...extra }),
  );
  return (await app.runtime.services.deliveries.email(id))!;
}

/**
 * Drives an accepted email the way the MTA would, through the same services: hand-over
 * (email.sent, one delivery per recipient), then the first recipient delivered over STARTTLS and
 * the second bounced (a 550 5.1.1); then an open and a click. Returns the deliveries by recipient.
 */
export async function deliverAndBounce(app: TestApp, email: Email) {
  const services = app.runtime.services;
  await services.deliveries.handOver(200, 'transactional');
  const claimed = await services.deliveries.claim('transactional', 50, 'test-worker', 60_000);
  const mine = claimed.filter((d) => d.emailId === email.id);
  const [first, second] = [...mine].sort((a, b) => a.recipient.localeCompare(b.recipient));
  await services.deliveries.delivered(email, [first!], {
    egressIp: '127.0.0.1',
    mxHost: 'mx.example.net',
    reply: '250 2.0.0 Ok: queued as 4ABC',
    transcript: TLS_TRANSCRIPT,
    durationMs: 42,
  });
  if (second) {
    await services.deliveries.bounced(
      email,
      [second],
      {
        egressIp: '127.0.0.1',
        mxHost: 'mx.example.net',
        reply: '550 5.1.1 <b@example.net>: Recipient address rejected: User unknown',
        transcript: 'S: 220 mx.example.net ESMTP\nC: EHLO mail.mailroom.localhost',
        durationMs: 17,
      },
      {
        type: 'Permanent',
        subType: 'General',
        message: 'The recipient does not exist',
        diagnosticCode: ['smtp; 550 5.1.1 <b@example.net>: Recipient address rejected: User unknown'],
      },
      true,
    );
  }
  const knex = app.runtime.db.knex;
  const at = new Date().toISOString();
  await services.emailTransitions.record(knex, email, 'email.opened', {
    open: { ipAddress: '192.0.2.1', timestamp: at, userAgent: 'Mail' },
  });
  await services.emailTransitions.record(knex, email, 'email.clicked', {
    click: { ipAddress: '192.0.2.1', link: 'https://example.com/offer', timestamp: at, userAgent: 'Mail' },
  });
  return { delivered: first!, bounced: second };
}
