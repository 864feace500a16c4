import type { DeliveryVerdict } from './bounce.types.js';

/**
 * What the inbound MX reads out of mail arriving at the bounce and feedback-loop addresses:
 * delivery status notifications (RFC 3464 and the human-only formats of common MTAs) and
 * abuse reports (RFC 5965 ARF). The types live apart from the parsers so that the parsers'
 * helper files can share them without importing the parsers back.
 */

/** RFC 3464 2.3.3 actions. */
export type RecipientAction = 'failed' | 'delayed' | 'delivered' | 'relayed' | 'expanded';

/** Who wrote the report: a vendor recognised by its wording, plain RFC 3464, or unknown. */
export type ReportFormat = 'rfc3464' | 'exchange' | 'gmail' | 'yahoo' | 'qmail' | 'postfix' | 'exim' | 'unknown';

export type ReportedRecipient = {
  /** The address the report is about: lower-case domain, no angle brackets, no 'rfc822;' type. */
  recipient: string;
  action: RecipientAction;
  /** Enhanced status code, e.g. '5.1.1'. */
  status: string | null;
  /** The remote server's text as reported, e.g. 'smtp; 550 5.1.1 <x@y>: User unknown'. */
  diagnostic: string | null;
  verdict: DeliveryVerdict;
};

export type DeliveryReport = {
  format: ReportFormat;
  recipients: ReportedRecipient[];
  /** Message-ID of the returned original, without angle brackets. */
  originalMessageId: string | null;
  /** Lower-case header name -> value, of the returned original when it came back. */
  originalHeaders: Record<string, string>;
  /** Original-Envelope-Id (the ENVID we gave at MAIL FROM). */
  envelopeId: string | null;
  reportingMta: string | null;
};

export type FeedbackReport = {
  /** 'abuse', 'fraud', 'virus', 'other', 'not-spam'..., lower-case. */
  feedbackType: string;
  /** Original-Rcpt-To values as given (they may be redacted). */
  originalRcptTo: string[];
  originalMailFrom: string | null;
  originalMessageId: string | null;
  originalHeaders: Record<string, string>;
  /** Best guess of who complained, null when every clue is absent or redacted. */
  originalRecipient: string | null;
  /**
   * Every address the report gives as the original recipient, redacted ones left out, best clue
   * first: X-HmXmrOriginalRecipient, the Original-Rcpt-To values, the original's To when it names
   * one address. Empty when the report names nobody (absent or redacted).
   */
  namedRecipients: string[];
  arrivalDate: string | null;
  reportingUserAgent: string | null;
};
