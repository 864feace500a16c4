/** What an ARF report (RFC 5965) says about the message it complains of. */
export type FeedbackReportClues = {
  /** Original-Rcpt-To of the report part (left out when undefined). */
  rcptTo?: string;
  /** The original message's To (left out when undefined). */
  to?: string;
  /** More headers of the original message (e.g. X-HmXmrOriginalRecipient). */
  originalHeaders?: string[];
};

/**
 * A feedback-loop complaint as mailbox providers send it: a multipart/report with a human part,
 * the message/feedback-report part and the original message (Message-ID `<emailId@domain>`,
 * from news@domain), addressed to `reportTo`.
 */
export function feedbackReport(
  reportTo: string,
  original: { emailId: string; domain: string },
  clues: FeedbackReportClues,
): string {
  return [
    `From: Feedback Loop <fbl@mail.example.net>`,
    `To: ${reportTo}`,
    `Subject: Complaint about message`,
    `MIME-Version: 1.0`,
    `Content-Type: multipart/report; report-type=feedback-report; boundary="f1"`,
    ``,
    `--f1`,
    `Content-Type: text/plain`,
    ``,
    `This is an email abuse report.`,
    `--f1`,
    `Content-Type: message/feedback-report`,
    ``,
    `Feedback-Type: abuse`,
    `User-Agent: ExampleFBL/1.0`,
    `Version: 1`,
    ...(clues.rcptTo === undefined ? [] : [`Original-Rcpt-To: ${clues.rcptTo}`]),
    `Arrival-Date: Thu, 8 Mar 2026 14:00:00 +0000`,
    ``,
    `--f1`,
    `Content-Type: message/rfc822`,
    ``,
    `Message-ID: <${original.emailId}@${original.domain}>`,
    `From: news@${original.domain}`,
    ...(clues.to === undefined ? [] : [`To: ${clues.to}`]),
    ...(clues.originalHeaders ?? []),
    `Subject: Hello`,
    ``,
    `hi`,
    `--f1--`,
    ``,
  ].join('\r\n');
}
