import { Resend } from 'resend';
import { receiveMessage, receivingDomain } from './received-mail.js';
import { startTestApp, type TestApp, type TestAppOptions } from './test-app.js';

/** An appliance with a team whose receiving domain has an inbox, and the SDK pointed at it. */
export async function startInboxApp(options: TestAppOptions = {}) {
  const app = await startTestApp(options);
  const team = await app.createTeam('Inbox team', 'unlimited');
  const domain = await receivingDomain(app, team.teamId);
  // Out of the sending sandbox: replies go to customers' own addresses.
  await app.runtime.services.teams.setTier(team.teamId, 2);
  const resend = new Resend(team.token, { baseUrl: `${app.url}/api/v1` } as never);
  const address = `support@${domain}`;
  const created = await resend.inboxes.create({ emailAddress: address, name: 'Support', fromName: 'Acme Support' });
  if (created.error) throw new Error(`inbox not created: ${created.error.message}`);
  return { app, team, domain, resend, address, inboxId: created.data!.id };
}

export type InboxApp = Awaited<ReturnType<typeof startInboxApp>>;

let counter = 0;

/** A plain message from a customer to `to`, as the MX would take it; returns its Message-ID. */
export async function customerWrites(
  app: TestApp,
  message: {
    to: string;
    from?: string;
    subject?: string;
    text?: string;
    inReplyTo?: string;
    references?: string[];
    messageId?: string;
    extraHeaders?: string[];
  },
): Promise<{ messageId: string; receivedId: string }> {
  const from = message.from ?? 'Casey Customer <casey@customer.test>';
  const messageId = message.messageId ?? `<m${++counter}.${Date.now()}@customer.test>`;
  const raw = [
    `From: ${from}`,
    `To: ${message.to}`,
    `Subject: ${message.subject ?? 'Where is my order?'}`,
    `Message-ID: ${messageId}`,
    `Date: ${new Date().toUTCString()}`,
    ...(message.inReplyTo ? [`In-Reply-To: ${message.inReplyTo}`] : []),
    ...(message.references ? [`References: ${message.references.join('\r\n ')}`] : []),
    ...(message.extraHeaders ?? []),
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    '',
    message.text ?? 'Hello, my order has not arrived.',
    '',
  ].join('\r\n');
  const result = await receiveMessage(app, { from: from.replace(/^.*<|>$/g, ''), to: [message.to], raw });
  return { messageId, receivedId: result.id };
}
