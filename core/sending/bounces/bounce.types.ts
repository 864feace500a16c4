/**
 * The vocabulary of delivery failures. Bounce types and sub-types are the ones the public SDK
 * family exposes in `email.bounced` (Amazon SES's): Permanent/General|NoEmail|Suppressed,
 * Transient/General|MailboxFull|MessageTooLarge|ContentRejected|AttachmentRejected,
 * Undetermined/Undetermined. Delay types are SES's for `email.delivery_delayed`.
 */

export const BOUNCE_CATEGORIES = [
  'mailbox_unknown',
  'mailbox_full',
  'message_too_large',
  'policy',
  'spam_block',
  'rate_limited',
  'greylisted',
  'domain_unknown',
  'relay_denied',
  'auth_failure',
  'content_rejected',
  'connection_failure',
  'unknown_temporary',
  'unknown_permanent',
] as const;
export type BounceCategory = (typeof BOUNCE_CATEGORIES)[number];

/** bounce: give up on this recipient now; defer: try again on the retry schedule. */
export type BounceAction = 'bounce' | 'defer';

export type BounceType = 'Permanent' | 'Transient' | 'Undetermined';

export type BounceSubType =
  | 'General'
  | 'NoEmail'
  | 'Suppressed'
  | 'OnAccountSuppressionList'
  | 'MailboxFull'
  | 'MessageTooLarge'
  | 'ContentRejected'
  | 'AttachmentRejected'
  | 'Undetermined';

export type DelayType =
  | 'InternalFailure'
  | 'General'
  | 'MailboxFull'
  | 'SpamDetected'
  | 'RecipientServerError'
  | 'IPFailure'
  | 'TransientCommunicationFailure'
  | 'Undetermined';

/** One rule: `match` is tested against '<code> <enhanced code or -> <text>'. */
export type BounceRule = {
  id: string;
  match: RegExp;
  category: BounceCategory;
  action: BounceAction;
  bounceType: BounceType;
  subType: BounceSubType;
  /** The reply says the sending IP is listed or distrusted: counts a strike against it. */
  blocklisting?: boolean;
  /** A real-looking server reply this rule exists for (the tests classify every one). */
  example: string;
};

/** A reply reduced to its parts; multi-line replies are joined into one text. */
export type ParsedReply = { code: number; enhanced: string | null; text: string };

export type ReplyInput = { code: number; enhanced?: string; text: string } | string;

/** The `bounce` object of the email.bounced event. */
export type BounceDetails = { type: BounceType; subType: BounceSubType; message: string; diagnosticCode: string[] };

export type DeliveryVerdict = {
  /** The id of the rule that decided, for logs and tests. */
  rule: string;
  category: BounceCategory;
  action: BounceAction;
  bounce: BounceDetails;
  /** What an email.delivery_delayed event reports while the failure is being retried. */
  delayType: DelayType;
  blocklisting: boolean;
  /** Only a permanent "no such mailbox/domain": the recipient goes on the suppression list. */
  hardBounce: boolean;
};
