import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import t from 'tap';
import { parseFeedbackReport, type FeedbackReport } from '../../../../core/sending/bounces/feedback-report.js';

/**
 * The corpus in test/fixtures/reports/arf is written by hand after RFC 5965 and the forms the
 * large mailbox providers send (Yahoo, Microsoft JMRP, AOL), redaction (RFC 6590) and the
 * common departures from the standard; every field a sample carries is checked.
 */

const ARF = new URL('../../../fixtures/reports/arf/', import.meta.url);
const fixture = (name: string) => readFileSync(new URL(name, ARF));

async function reportOf(raw: Buffer | string): Promise<FeedbackReport> {
  const report = await parseFeedbackReport(raw);
  if (!report) throw new Error('not read as a feedback report');
  return report;
}

const emailId = (n: number) => `0193a5c0-7b2e-7c41-9d3a-5f1e2b3c4d${n}`;
const verp = (n: number) => `bounces+${emailId(n)}@send.example.com`;

type Expected = {
  report: Omit<FeedbackReport, 'originalHeaders'>;
  /** Headers of the attached original that the caller reads. */
  headers: Record<string, string>;
};

const SAMPLES: Record<string, Expected> = {
  'yahoo-abuse.eml': {
    report: {
      feedbackType: 'abuse',
      originalRcptTo: ['Quinn@example.net'],
      originalMailFrom: verp(31),
      originalMessageId: `${emailId(31)}@mail.example.com`,
      originalRecipient: 'Quinn@example.net',
      namedRecipients: ['Quinn@example.net'],
      arrivalDate: 'Thu, 14 Nov 2024 10:15:45 +0000',
      reportingUserAgent: 'Yahoo!-Mail-Feedback/2.0',
    },
    headers: {
      'x-mailroom-email-id': emailId(31),
      to: 'quinn@example.net',
      from: 'Example Shop <orders@example.com>',
      subject: 'Your order has shipped',
      'list-unsubscribe': `<https://mail.example.com/unsubscribe/${emailId(31)}>`,
    },
  },
  'microsoft-jmrp.eml': {
    report: {
      feedbackType: 'abuse',
      originalRcptTo: [],
      originalMailFrom: verp(32),
      originalMessageId: `${emailId(32)}@mail.example.com`,
      // X-HmXmrOriginalRecipient wins over the To header (the mailbox a forward led to).
      originalRecipient: 'Rachel@example.net',
      // The To names the address the message was sent to, before the forward.
      namedRecipients: ['Rachel@example.net', 'rachel.green@example.org'],
      arrivalDate: 'Thu, 14 Nov 2024 11:02:13 -0800',
      reportingUserAgent: 'Hotmail FBL',
    },
    headers: {
      'x-mailroom-email-id': emailId(32),
      'x-hmxmroriginalrecipient': '<Rachel@Example.NET>',
      to: 'Rachel Green <rachel.green@example.org>',
      subject: 'Spring sale',
    },
  },
  'redacted.eml': {
    report: {
      feedbackType: 'fraud',
      originalRcptTo: ['xxxxxxxx@example.org'],
      originalMailFrom: verp(33),
      originalMessageId: `${emailId(33)}@mail.example.com`,
      // Original-Rcpt-To and To are both redacted: nobody is named.
      originalRecipient: null,
      namedRecipients: [],
      arrivalDate: 'Thu, 14 Nov 2024 11:58:41 +0000',
      reportingUserAgent: 'ExampleISP-FBL/3.1',
    },
    headers: { 'x-mailroom-email-id': emailId(33), to: 'redacted@example.org', subject: 'Verify your account' },
  },
  'aol-headers.eml': {
    report: {
      feedbackType: 'abuse',
      originalRcptTo: [],
      // No Original-Mail-From: the original's Return-Path.
      originalMailFrom: verp(34),
      originalMessageId: `${emailId(34)}@mail.example.com`,
      // No Original-Rcpt-To: the To header, which names one address.
      originalRecipient: 'sam@example.org',
      namedRecipients: ['sam@example.org'],
      arrivalDate: 'Thu, 14 Nov 2024 13:10:02 -0500 (EST)',
      reportingUserAgent: 'AOL SComp',
    },
    headers: {
      'x-mailroom-email-id': emailId(34),
      'return-path': `<${verp(34)}>`,
      to: '"Lee, Sam" <sam@Example.ORG>',
      subject: 'Weekly deals',
    },
  },
  'not-spam.eml': {
    report: {
      feedbackType: 'not-spam',
      originalRcptTo: ['tara@example.org'],
      originalMailFrom: verp(35),
      originalMessageId: `${emailId(35)}@mail.example.com`,
      originalRecipient: 'tara@example.org',
      namedRecipients: ['tara@example.org'],
      arrivalDate: 'Thu, 14 Nov 2024 14:20:11 +0000',
      reportingUserAgent: 'ExampleMailbox-FBL/1.4',
    },
    headers: { 'x-mailroom-email-id': emailId(35), to: 'tara@example.org' },
  },
  'text-plain-feedback.eml': {
    report: {
      feedbackType: 'abuse',
      originalRcptTo: ['uma@example.com', 'victor@example.com'],
      originalMailFrom: verp(36),
      originalMessageId: `${emailId(36)}@mail.example.com`,
      originalRecipient: 'uma@example.com',
      // A To naming two addresses says nothing about who complained.
      namedRecipients: ['uma@example.com', 'victor@example.com'],
      arrivalDate: 'Thu, 14 Nov 2024 15:40:31 +0000',
      reportingUserAgent: 'WebmailFBL/0.9',
    },
    headers: { 'x-mailroom-email-id': emailId(36), to: 'uma@example.com, victor@example.com' },
  },
};

const NOT_REPORTS = ['not-arf.eml'];

t.test('the corpus is the samples listed here', async (t) => {
  const names = readdirSync(ARF).filter((name) => name.endsWith('.eml'));
  t.same(names.sort(), [...Object.keys(SAMPLES), ...NOT_REPORTS].sort());
});

for (const [name, expected] of Object.entries(SAMPLES)) {
  t.test(name, async (t) => {
    const { originalHeaders, ...report } = await reportOf(fixture(name));
    t.same(report, expected.report, 'fields');
    t.match(originalHeaders, expected.headers, 'original headers');
    t.equal(originalHeaders['message-id'], `<${expected.report.originalMessageId}>`, 'message-id header');
  });
}

t.test('messages that are no feedback report read as undefined', async (t) => {
  for (const name of NOT_REPORTS) t.equal(await parseFeedbackReport(fixture(name)), undefined, name);
  const withoutType = [
    'Content-Type: multipart/report; report-type=feedback-report; boundary="b"',
    '',
    '--b',
    'Content-Type: message/feedback-report',
    '',
    'User-Agent: SomeFBL/1.0',
    'Version: 1',
    '--b--',
  ].join('\r\n');
  t.equal(await parseFeedbackReport(withoutType), undefined, 'no Feedback-Type');
  const single = 'Content-Type: text/plain\r\n\r\nFeedback-Type: abuse\r\nUser-Agent: x\r\n';
  t.equal(await parseFeedbackReport(single), undefined, 'fields in a message that is not multipart');
});

t.test('LF and CRLF line ends, Buffer and string input read the same', async (t) => {
  for (const name of Object.keys(SAMPLES)) {
    const lf = fixture(name).toString('utf8').replace(/\r\n/g, '\n');
    const expected = await reportOf(lf);
    t.same(await reportOf(lf.replace(/\n/g, '\r\n')), expected, `${name}: CRLF`);
    t.same(await reportOf(Buffer.from(lf)), expected, `${name}: Buffer`);
  }
});

t.test('a report without the original', async (t) => {
  const raw = [
    'Content-Type: multipart/report; report-type=feedback-report; boundary="b"',
    '',
    '--b',
    'Content-Type: text/plain',
    '',
    'An abuse report.',
    '--b',
    'Content-Type: message/feedback-report',
    '',
    'Feedback-Type: virus',
    'Original-Rcpt-To: <wes@example.org>, <zoe@example.org>',
    '--b--',
  ].join('\n');
  t.same(await reportOf(raw), {
    feedbackType: 'virus',
    originalRcptTo: ['wes@example.org', 'zoe@example.org'],
    originalMailFrom: null,
    originalMessageId: null,
    originalHeaders: {},
    originalRecipient: 'wes@example.org',
    namedRecipients: ['wes@example.org', 'zoe@example.org'],
    arrivalDate: null,
    reportingUserAgent: null,
  });
});

t.test('garbage never throws', async (t) => {
  for (const [label, raw] of [
    ['empty', ''],
    ['random bytes', randomBytes(64 * 1024)],
    ['boundary only', 'Content-Type: multipart/report; report-type=feedback-report; boundary=b\r\n\r\n--b\r\n'],
  ] as Array<[string, string | Buffer]>)
    t.equal(await parseFeedbackReport(raw), undefined, label);
  for (const name of Object.keys(SAMPLES)) {
    const raw = fixture(name);
    for (const cut of [0.25, 0.5, 0.75]) {
      const report = await parseFeedbackReport(raw.subarray(0, Math.floor(raw.length * cut)));
      t.ok(report === undefined || typeof report.feedbackType === 'string', `${name} cut at ${cut * 100}%`);
    }
  }
});
