import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import t from 'tap';
import {
  parseDeliveryReport,
  type DeliveryReport,
  type ReportedRecipient,
} from '../../../../core/sending/bounces/delivery-report.js';
import { parseFeedbackReport } from '../../../../core/sending/bounces/feedback-report.js';

/**
 * The corpus in test/fixtures/reports/dsn is written by hand after RFC 3464 / RFC 6533 and the
 * formats of the common MTAs; every sample is checked field by field: format, recipients with
 * their action, status, diagnostic and verdict, and the returned original.
 */

const DSN = new URL('../../../fixtures/reports/dsn/', import.meta.url);
const ARF = new URL('../../../fixtures/reports/arf/', import.meta.url);
const fixture = (name: string, dir = DSN) => readFileSync(new URL(name, dir));
const names = (dir: URL) => readdirSync(dir).filter((name) => name.endsWith('.eml'));

async function reportOf(raw: Buffer | string): Promise<DeliveryReport> {
  const report = await parseDeliveryReport(raw);
  if (!report) throw new Error('not read as a delivery report');
  return report;
}

const emailId = (n: number) => `0193a5c0-7b2e-7c41-9d3a-5f1e2b3c4d${String(n).padStart(2, '0')}`;
const messageId = (n: number) => `${emailId(n)}@mail.example.com`;

type ExpectedRecipient = {
  recipient: string;
  action: ReportedRecipient['action'];
  status: string | null;
  diagnostic: string | null;
  rule: string;
  type: string;
  subType: string;
  hardBounce: boolean;
};

type Expected = {
  format: DeliveryReport['format'];
  /** The sample's number: its Message-ID and X-Mailroom-Email-Id; null when nothing came back. */
  original: number | null;
  reportingMta: string | null;
  envelopeId?: string;
  recipients: ExpectedRecipient[];
};

const mailboxUnknown = { rule: 'mailbox-unknown', type: 'Permanent', subType: 'General', hardBounce: true };

const SAMPLES: Record<string, Expected> = {
  'rfc3464-user-unknown.eml': {
    format: 'rfc3464',
    original: 1,
    reportingMta: 'mx.example.org',
    recipients: [
      {
        recipient: 'nobody@example.org',
        action: 'failed',
        status: '5.1.1',
        diagnostic: 'SMTP; 550 5.1.1 <nobody@example.org>... User unknown',
        ...mailboxUnknown,
      },
    ],
  },
  'rfc3464-mailbox-full.eml': {
    format: 'rfc3464',
    original: 2,
    reportingMta: 'mx1.example.net',
    recipients: [
      {
        recipient: 'carol@example.net',
        action: 'failed',
        status: '5.2.2',
        diagnostic: 'smtp; 552 5.2.2 <carol@example.net>: Mailbox full, quota exceeded',
        rule: 'mailbox-full',
        type: 'Transient',
        subType: 'MailboxFull',
        hardBounce: false,
      },
    ],
  },
  'rfc3464-delayed.eml': {
    format: 'rfc3464',
    original: 3,
    reportingMta: 'relay.example.org',
    recipients: [
      {
        recipient: 'dan@example.org',
        action: 'delayed',
        status: '4.4.7',
        diagnostic: 'X-Sendmail; Deferred: Connection timed out with mx.example.org.',
        rule: 'temporary',
        type: 'Transient',
        subType: 'General',
        hardBounce: false,
      },
    ],
  },
  'rfc3464-two-recipients.eml': {
    format: 'rfc3464',
    original: 4,
    reportingMta: 'gw.example.org',
    envelopeId: emailId(4),
    recipients: [
      {
        recipient: 'dave@example.net',
        action: 'failed',
        status: '5.7.1',
        diagnostic: 'smtp; 554 5.7.1 <dave@example.net>: Relay access denied',
        rule: 'relay-denied',
        type: 'Permanent',
        subType: 'General',
        hardBounce: false,
      },
      {
        // Original-Recipient (the address we sent to), not where the alias led (Final-Recipient).
        recipient: 'sales@example.org',
        action: 'delivered',
        status: '2.0.0',
        diagnostic: 'smtp; 250 2.0.0 Ok: queued as 4XqR1p2Lmz',
        rule: 'unparseable',
        type: 'Undetermined',
        subType: 'Undetermined',
        hardBounce: false,
      },
    ],
  },
  'rfc822-headers.eml': {
    format: 'rfc3464',
    original: 5,
    reportingMta: 'mx.example.net',
    envelopeId: emailId(5),
    recipients: [
      {
        recipient: 'frank@example.net',
        action: 'failed',
        status: '5.7.1',
        diagnostic: 'smtp; 550 5.7.1 Message rejected as spam by Content Filtering.',
        rule: 'spam-content',
        type: 'Transient',
        subType: 'ContentRejected',
        hardBounce: false,
      },
    ],
  },
  'global-delivery-status.eml': {
    format: 'rfc3464',
    original: 6,
    reportingMta: 'mx.example.org',
    recipients: [
      {
        recipient: 'jörg@example.org',
        action: 'failed',
        status: '5.1.1',
        diagnostic: 'smtp; 550 5.1.1 <jörg@example.org>: Recipient address rejected: User unknown',
        ...mailboxUnknown,
      },
    ],
  },
  'folded-diagnostic.eml': {
    format: 'rfc3464',
    original: 7,
    reportingMta: 'out2.example.net',
    recipients: [
      {
        recipient: 'grace@example.com',
        action: 'failed',
        status: '5.7.26',
        diagnostic:
          "smtp; 550-5.7.26 Unauthenticated email from example.com is not accepted due to domain's DMARC policy. Please contact the administrator of example.com domain if this was a legitimate mail. To learn about the DMARC initiative, go to https://support.google.com/mail/?p=DmarcRejection d2e1a72fcca58-71e5b3c7a1fsi1234567b3a.42 - gsmtp",
        rule: 'auth-dmarc',
        type: 'Permanent',
        subType: 'General',
        hardBounce: false,
      },
    ],
  },
  'postfix-report.eml': {
    format: 'postfix',
    original: 8,
    reportingMta: 'mail.example.org',
    recipients: [
      {
        recipient: 'henry@example.org',
        action: 'failed',
        status: '5.1.1',
        diagnostic:
          'smtp; 550 5.1.1 <henry@example.org>: Recipient address rejected: User unknown in virtual mailbox table',
        ...mailboxUnknown,
      },
    ],
  },
  'postfix-human-only.eml': {
    format: 'postfix',
    original: 9,
    reportingMta: 'relay.example.net',
    recipients: [
      {
        recipient: 'ivy@nowhere.example.net',
        action: 'failed',
        status: null,
        diagnostic:
          'Host or domain name not found. Name service error for name=nowhere.example.net type=A: Host not found',
        rule: 'domain-unknown',
        type: 'Permanent',
        subType: 'General',
        hardBounce: true,
      },
      {
        // '(expanded from <info@example.org>)': the address we sent to.
        recipient: 'info@example.org',
        action: 'failed',
        status: '5.1.1',
        diagnostic:
          'smtp; 550 5.1.1 <jack@example.org>: Recipient address rejected: User unknown in local recipient table',
        ...mailboxUnknown,
      },
    ],
  },
  'exim.eml': {
    format: 'exim',
    original: 10,
    reportingMta: null,
    recipients: [
      {
        recipient: 'ivan@example.net',
        action: 'failed',
        status: '5.1.1',
        diagnostic:
          "smtp; 550 5.1.1 The email account that you tried to reach does not exist. Please try double-checking the recipient's email address for typos or unnecessary spaces.",
        ...mailboxUnknown,
      },
    ],
  },
  'exim-delayed.eml': {
    format: 'exim',
    original: 11,
    reportingMta: null,
    recipients: [
      {
        recipient: 'judy@example.net',
        action: 'delayed',
        status: '4.2.2',
        diagnostic: 'smtp; 452 4.2.2 The email account that you tried to reach is over quota.',
        rule: 'mailbox-full-temporary',
        type: 'Transient',
        subType: 'MailboxFull',
        hardBounce: false,
      },
    ],
  },
  'qmail.eml': {
    format: 'qmail',
    original: 12,
    reportingMta: 'mail.example.net',
    recipients: [
      {
        recipient: 'kate@example.org',
        action: 'failed',
        status: '5.1.1',
        diagnostic: 'smtp; 550 5.1.1 <kate@example.org>... User unknown',
        ...mailboxUnknown,
      },
      {
        recipient: 'leo@mail.example.net',
        action: 'failed',
        status: '5.1.1',
        diagnostic: 'Sorry, no mailbox here by that name. (#5.1.1)',
        ...mailboxUnknown,
      },
    ],
  },
  'yahoo.eml': {
    format: 'yahoo',
    original: 13,
    reportingMta: null,
    recipients: [
      {
        recipient: 'kim@example.net',
        action: 'failed',
        status: null,
        diagnostic:
          'smtp; 554 delivery error: dd Sorry your message to kim@example.net cannot be delivered. This mailbox is disabled (554.30). - mta4471.mail.gq1.example.net [RCPT_TO]',
        rule: 'mailbox-disabled',
        type: 'Permanent',
        subType: 'General',
        hardBounce: true,
      },
    ],
  },
  'exchange.eml': {
    format: 'exchange',
    original: 14,
    reportingMta: 'DB8PR02MB5996.eurprd02.prod.outlook.com',
    recipients: [
      {
        recipient: 'mike@example.org',
        action: 'failed',
        status: '5.1.10',
        diagnostic: 'smtp;550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient not found by SMTP address lookup',
        ...mailboxUnknown,
      },
    ],
  },
  'exchange-legacy.eml': {
    format: 'exchange',
    original: 15,
    reportingMta: 'EXCH01.corp.example.net',
    recipients: [
      {
        recipient: 'Nina.Patel@corp.example.net',
        action: 'failed',
        status: '5.1.1',
        diagnostic: 'smtp; 550 5.1.1 RESOLVER.ADR.RecipientNotFound; not found',
        ...mailboxUnknown,
      },
    ],
  },
  'gmail.eml': {
    format: 'gmail',
    original: 16,
    reportingMta: 'googlemail.com',
    recipients: [
      {
        recipient: 'olivia@example.org',
        action: 'failed',
        status: '5.1.1',
        diagnostic:
          'smtp; 550 5.1.1 <olivia@example.org>: Recipient address rejected: User unknown in virtual mailbox table',
        ...mailboxUnknown,
      },
    ],
  },
  'gmail-delay.eml': {
    format: 'gmail',
    // No original attached: the Message-ID comes from X-Original-Message-ID.
    original: 17,
    reportingMta: 'googlemail.com',
    recipients: [
      {
        recipient: 'paul@example.net',
        action: 'delayed',
        status: '4.3.0',
        diagnostic: 'smtp; 451 4.3.0 <paul@example.net>: Temporary lookup failure',
        rule: 'temporary',
        type: 'Transient',
        subType: 'General',
        hardBounce: false,
      },
    ],
  },
  'gmail-legacy.eml': {
    format: 'gmail',
    original: 18,
    reportingMta: null,
    recipients: [
      {
        recipient: 'quentin@example.com',
        action: 'failed',
        status: '5.2.1',
        diagnostic:
          'smtp; 550 5.2.1 The email account that you tried to reach is disabled. Learn more at https://support.google.com/mail/?p=DisabledUser a1si1234567qkb.42 - gsmtp',
        rule: 'mailbox-disabled',
        type: 'Permanent',
        subType: 'General',
        hardBounce: true,
      },
    ],
  },
  'unknown-bounce.eml': { format: 'unknown', original: null, reportingMta: null, recipients: [] },
};

const NOT_BOUNCES = ['out-of-office.eml', 'ordinary.eml'];

const recipientView = (entry: ReportedRecipient): ExpectedRecipient => ({
  recipient: entry.recipient,
  action: entry.action,
  status: entry.status,
  diagnostic: entry.diagnostic,
  rule: entry.verdict.rule,
  type: entry.verdict.bounce.type,
  subType: entry.verdict.bounce.subType,
  hardBounce: entry.verdict.hardBounce,
});

t.test('the corpus is the samples listed here', async (t) => {
  t.same(names(DSN).sort(), [...Object.keys(SAMPLES), ...NOT_BOUNCES].sort());
});

for (const [name, expected] of Object.entries(SAMPLES)) {
  t.test(name, async (t) => {
    const report = await reportOf(fixture(name));
    t.equal(report.format, expected.format, 'format');
    t.same(report.recipients.map(recipientView), expected.recipients, 'recipients');
    t.equal(report.reportingMta, expected.reportingMta, 'reporting MTA');
    t.equal(report.envelopeId, expected.envelopeId ?? null, 'envelope id');
    t.equal(report.originalMessageId, expected.original === null ? null : messageId(expected.original), 'Message-ID');
    if (expected.original !== null && name !== 'gmail-delay.eml') {
      t.equal(report.originalHeaders['x-mailroom-email-id'], emailId(expected.original), 'X-Mailroom-Email-Id');
      t.equal(report.originalHeaders['message-id'], `<${messageId(expected.original)}>`, 'message-id header');
    } else t.same(report.originalHeaders, {}, 'no original came back');
    for (const entry of report.recipients.filter((recipient) => recipient.action === 'delayed'))
      t.match(entry.verdict, { action: 'defer', bounce: { type: 'Transient' } }, 'a delay is temporary');
  });
}

t.test('the returned original: headers decoded, the first of a repeated one kept', async (t) => {
  const headers = (await reportOf(fixture('rfc822-headers.eml'))).originalHeaders;
  t.equal(headers['subject'], 'Autumn sale: 30% off everything', 'encoded words joined and decoded');
  t.equal(headers['x-mailroom-tag'], 'campaign=autumn-sale');
  t.equal(headers['to'], 'frank@example.net');
  t.match(headers['received'], /^from mail\.example\.com .* for <frank@example\.net>;/, 'folded Received unfolded');
  const quoted = (await reportOf(fixture('qmail.eml'))).originalHeaders;
  t.equal(quoted['received'], '(qmail 31335 invoked from network); 13 Nov 2024 14:21:05 -0000', 'topmost Received');
  t.equal(
    (await reportOf(fixture('global-delivery-status.eml'))).originalHeaders['to'],
    'Jörg Müller <jörg@example.org>',
  );
});

t.test('verdicts made from the status code when the diagnostic holds no SMTP reply', async (t) => {
  const [delayed] = (await reportOf(fixture('rfc3464-delayed.eml'))).recipients;
  t.same(delayed?.verdict.bounce.diagnosticCode, [
    'smtp; 450 4.4.7 Deferred: Connection timed out with mx.example.org.',
  ]);
  const [noSuchDomain] = (await reportOf(fixture('postfix-human-only.eml'))).recipients;
  t.equal(noSuchDomain?.verdict.action, 'bounce', 'a failure without a code reads as a 5xx');
});

/** A minimal RFC 3464 report around the given recipient blocks. */
const dsn = (blocks: string, statusHeaders = '') =>
  [
    'From: MAILER-DAEMON@mx.example.org',
    'Subject: Delivery report',
    'Content-Type: multipart/report; report-type=delivery-status; boundary="b"',
    '',
    '--b',
    'Content-Type: text/plain',
    '',
    'See the report.',
    '--b',
    'Content-Type: message/delivery-status',
    statusHeaders,
    '',
    'Reporting-MTA: dns; mx.example.org',
    '',
    blocks,
    '--b--',
  ].join('\r\n');

t.test('a delayed action is temporary whatever its last reply said', async (t) => {
  const [entry] = (
    await reportOf(
      dsn(
        'Final-Recipient: rfc822; una@example.org\nAction: delayed\nStatus: 5.1.1\nDiagnostic-Code: smtp; 550 5.1.1 User unknown',
      ),
    )
  ).recipients;
  t.match(entry, { action: 'delayed', status: '5.1.1' });
  t.match(entry?.verdict, { action: 'defer', hardBounce: false, bounce: { type: 'Transient' } });
});

t.test('recipient blocks that are not by the book', async (t) => {
  const report = await reportOf(
    dsn(
      [
        // No empty line between two recipients, no Action: read from the status class.
        'Final-Recipient: rfc822; <Ann@Example.ORG>',
        'Status: 5.1.1',
        'Final-Recipient: rfc822; bob@example.org',
        'Action: Failed (permanent)',
        'Status: 4.2.2',
        'Diagnostic-Code: smtp; 452 Mailbox full',
        '',
        'Final-Recipient: rfc822; carl@example.org',
        'Status: 4.4.1',
      ].join('\n'),
    ),
  );
  t.same(
    report.recipients.map((entry) => [entry.recipient, entry.action, entry.status, entry.verdict.rule]),
    [
      ['Ann@example.org', 'failed', '5.1.1', 'mailbox-unknown'],
      ['bob@example.org', 'failed', '4.2.2', 'mailbox-full-temporary'],
      ['carl@example.org', 'delayed', '4.4.1', 'temporary'],
    ],
  );
});

t.test('a base64 delivery-status part', async (t) => {
  const fields = Buffer.from(
    'Final-Recipient: rfc822; dora@example.net\r\nAction: failed\r\nStatus: 5.1.1\r\n',
  ).toString('base64');
  const raw = dsn('', 'Content-Transfer-Encoding: base64').replace(
    'Reporting-MTA: dns; mx.example.org\r\n\r\n',
    `${fields}\r\n`,
  );
  const [entry] = (await reportOf(raw)).recipients;
  t.match(entry, { recipient: 'dora@example.net', action: 'failed', status: '5.1.1', diagnostic: null });
  t.equal(entry?.verdict.rule, 'mailbox-unknown', 'classified from the status code alone');
});

t.test('messages that are no bounce read as undefined', async (t) => {
  for (const name of NOT_BOUNCES) t.equal(await parseDeliveryReport(fixture(name)), undefined, name);
  for (const name of names(ARF)) t.equal(await parseDeliveryReport(fixture(name, ARF)), undefined, `arf/${name}`);
  for (const name of names(DSN))
    t.equal(await parseFeedbackReport(fixture(name)), undefined, `${name} is no feedback report`);
});

t.test('LF and CRLF line ends, Buffer and string input read the same', async (t) => {
  for (const name of Object.keys(SAMPLES)) {
    const lf = fixture(name).toString('utf8').replace(/\r\n/g, '\n');
    const crlf = lf.replace(/\n/g, '\r\n');
    const expected = await reportOf(lf);
    t.same(await reportOf(crlf), expected, `${name}: CRLF`);
    t.same(await reportOf(Buffer.from(lf)), expected, `${name}: Buffer`);
  }
});

t.test('garbage never throws', async (t) => {
  const inputs: Array<[string, Buffer | string]> = [
    ['empty', ''],
    ['random bytes', randomBytes(64 * 1024)],
    ['headers only', 'From: MAILER-DAEMON@mx.example.org\r\nSubject: Undeliverable'],
    ['multipart without boundary', 'Content-Type: multipart/report; report-type=delivery-status\r\n\r\n--x\r\n'],
    ['no recipient in the report', dsn('Action: failed\nStatus: 5.1.1')],
  ];
  for (const [label, raw] of inputs) {
    const report = await parseDeliveryReport(raw);
    t.ok(report === undefined || (Array.isArray(report.recipients) && report.recipients.length === 0), label);
  }
  t.match(await parseDeliveryReport(dsn('Action: failed\nStatus: 5.1.1')), { format: 'rfc3464', recipients: [] });
  const unclosed = dsn('Final-Recipient: rfc822; x@example.org\nAction: failed').replace('--b--', '');
  t.match(await parseDeliveryReport(unclosed), { recipients: [{ recipient: 'x@example.org', action: 'failed' }] });
  t.match(await parseDeliveryReport(fixture('unknown-bounce.eml')), { format: 'unknown', recipients: [] });
  for (const name of Object.keys(SAMPLES)) {
    const raw = fixture(name);
    for (const cut of [0.25, 0.5, 0.75]) {
      const report = await parseDeliveryReport(raw.subarray(0, Math.floor(raw.length * cut)));
      t.ok(report === undefined || Array.isArray(report.recipients), `${name} cut at ${cut * 100}%`);
    }
  }
});

t.test('a huge message is read only as far as a report goes', async (t) => {
  const raw = fixture('rfc3464-user-unknown.eml')
    .toString('latin1')
    .replace('Your order #1234 is on its way.', 'x'.repeat(40 * 1024 * 1024));
  const started = performance.now();
  const report = await reportOf(raw);
  t.equal(report.recipients[0]?.recipient, 'nobody@example.org');
  t.equal(report.originalMessageId, messageId(1));
  t.ok(performance.now() - started < 5000, 'well under the time a 40 MB parse would take');
  const buried = fixture('qmail.eml')
    .toString('latin1')
    .replace('Hi. This is', `${'filler line\n'.repeat(30_000)}Hi. This is`);
  t.same((await reportOf(buried)).recipients, [], 'a recipient past the first 256 KB of text is not looked for');
});
