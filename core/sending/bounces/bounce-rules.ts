import type { BounceRule } from './bounce.types.js';

/**
 * What remote servers' replies mean, as data. Each rule is tested against
 * '<code> <enhanced code, or - when there is none> <text>' (multi-line replies joined), in order;
 * the first match wins, so the specific rules come before the broad ones and the last two are
 * the fallbacks by reply class. Every rule carries a real-looking reply it exists for; the tests
 * check that each example is decided by its own rule, so a rule shadowed by an earlier one shows.
 *
 * Two deliberate departures from "5xx means bounce":
 *  - a listing or distrust of our sending IP (spam_block) is deferred, not bounced: it is about
 *    the address we left from, not the recipient, and the strike it counts rests that address
 *    for the destination so the retry leaves from another one (zone-mta does the same);
 *  - "too many recipients" is deferred (RFC 5321 4.5.3.1.10: a 552 there is temporary).
 */
export const BOUNCE_RULES: readonly BounceRule[] = [
  // A command-sequence or syntax complaint (503, 500, 501) says our conversation went wrong,
  // not that the recipient cannot take mail: retried on a fresh connection, never bounced.
  {
    id: 'protocol-error',
    match: /^50[03] /,
    category: 'unknown_temporary',
    action: 'defer',
    bounceType: 'Transient',
    subType: 'General',
    example: '503 5.5.1 Error: nested MAIL command',
  },
  // Greylisting says "come back later" in so many words; it must win over every 4xx rule below.
  {
    id: 'greylisted',
    match: /^4\d\d \S+ .*\b(gr[ae]y-?list|postgrey)/i,
    category: 'greylisted',
    action: 'defer',
    bounceType: 'Transient',
    subType: 'General',
    example: '451 4.7.1 Greylisted, please try again',
  },

  // Authentication of the sender (ours to fix: SPF, DKIM, DMARC, reverse DNS). Before the
  // generic 5.7.x policy and spam wording, which these replies often also contain.
  {
    id: 'auth-dmarc',
    match: /^5\d\d (5\.7\.509 |\S+ .*\bDMARC\b)/i,
    category: 'auth_failure',
    action: 'bounce',
    bounceType: 'Permanent',
    subType: 'General',
    example:
      "550-5.7.26 Unauthenticated email from example.com is not accepted due to domain's DMARC policy. Please contact the administrator of example.com domain if this was a legitimate mail. To learn about the DMARC initiative, go to https://support.google.com/mail/?p=DmarcRejection - gsmtp",
  },
  {
    id: 'auth-spf-dkim',
    match: /^5\d\d (5\.7\.2[0-46] |5\.7\.515 |\S+ .*\b(SPF|DKIM|unauthenticated|Sender Policy Framework)\b)/i,
    category: 'auth_failure',
    action: 'bounce',
    bounceType: 'Permanent',
    subType: 'General',
    example: '550 5.7.23 The message was rejected because of Sender Policy Framework violation',
  },
  {
    id: 'auth-reverse-dns',
    match: /^5\d\d (5\.7\.25 |\S+ .*\b(reverse DNS|PTR record|reverse hostname)\b)/i,
    category: 'auth_failure',
    action: 'bounce',
    bounceType: 'Permanent',
    subType: 'General',
    example:
      '550-5.7.25 [192.0.2.1] The IP address sending this message does not have a PTR record setup, or the corresponding forward DNS entry does not point to the sending IP. As a policy, Gmail does not accept messages from IPs with missing PTR records. - gsmtp',
  },
  {
    id: 'auth-temporary',
    match: /^4\d\d (4\.7\.2[0-7] |\S+ .*\b(DMARC|SPF|DKIM|unauthenticated|PTR record|reverse DNS|reverse hostname)\b)/i,
    category: 'auth_failure',
    action: 'defer',
    bounceType: 'Transient',
    subType: 'General',
    example:
      '421-4.7.26 This mail has been rate limited because it is unauthenticated. Gmail requires all senders to authenticate with either SPF or DKIM. - gsmtp',
  },

  // Mailbox full and message too large: SES's Transient/MailboxFull and /MessageTooLarge, the
  // recipient is fine. Before the content rules ("attachments exceed the size limit").
  {
    id: 'mailbox-full-temporary',
    match: /^4\d\d (4\.2\.2 |\S+ .*(over quota|quota exceeded|mailbox (is )?full|out of storage))/i,
    category: 'mailbox_full',
    action: 'defer',
    bounceType: 'Transient',
    subType: 'MailboxFull',
    example:
      '452 4.2.2 The email account that you tried to reach is over quota. Please direct the recipient to https://support.google.com/mail/?p=OverQuotaTemp - gsmtp',
  },
  {
    id: 'mailbox-full',
    match: /^5\d\d (5\.2\.2 |\S+ .*(over quota|quota exceeded|mailbox (is )?full|mailbox size limit|out of storage))/i,
    category: 'mailbox_full',
    action: 'bounce',
    bounceType: 'Transient',
    subType: 'MailboxFull',
    example: '552 5.2.2 Mailbox full',
  },
  {
    id: 'message-too-large',
    match:
      /^5\d\d (5\.3\.4 |5\.2\.3 |\S+ .*(message (size )?(exceeds|is too (big|large))|message too (big|large)|size limit))/i,
    category: 'message_too_large',
    action: 'bounce',
    bounceType: 'Transient',
    subType: 'MessageTooLarge',
    example: '552 5.3.4 Message size exceeds fixed maximum message size',
  },

  // Content: a domain in the message (or our From domain) on a URI/domain list, a virus, an
  // attachment, spam scoring. Retrying the same bytes from another IP changes nothing.
  {
    id: 'domain-listed-in-content',
    match: /^5\d\d \S+ .*\b(uribl|surbl|dbl\.spamhaus)/i,
    category: 'content_rejected',
    action: 'bounce',
    bounceType: 'Transient',
    subType: 'ContentRejected',
    example:
      '554 5.7.1 Service unavailable; Sender address [news@example.com] blocked using dbl.spamhaus.org; https://www.spamhaus.org/query/domain/example.com',
  },
  {
    id: 'virus',
    match: /^5\d\d \S+ .*\b(virus|malware|infected|eicar|phishing)/i,
    category: 'content_rejected',
    action: 'bounce',
    bounceType: 'Transient',
    subType: 'ContentRejected',
    example: '554 5.7.1 Message rejected: virus found: Eicar-Test-Signature',
  },
  {
    id: 'attachment-rejected',
    match: /^5\d\d \S+ .*\b(attachment|file (type|extension)|executable)/i,
    category: 'content_rejected',
    action: 'bounce',
    bounceType: 'Transient',
    subType: 'AttachmentRejected',
    example:
      '552-5.7.0 This message was blocked because its content presents a potential security issue. Please visit https://support.google.com/mail/?p=BlockedMessage to review our message content and attachment content guidelines. - gsmtp',
  },

  // Our sending IP is on a DNS blocklist or distrusted by reputation.
  {
    id: 'ip-blocklisted',
    match:
      /^[45]\d\d \S+ .*(blocked using|(black|block) ?listed|blacklist|DNSBL|\bRBL\b|spamhaus|spamcop|barracudacentral|sorbs\.net)/i,
    category: 'spam_block',
    action: 'defer',
    bounceType: 'Transient',
    subType: 'General',
    blocklisting: true,
    example:
      '554 5.7.1 Service unavailable; Client host [192.0.2.1] blocked using zen.spamhaus.org; https://www.spamhaus.org/query/ip/192.0.2.1',
  },
  {
    id: 'microsoft-block-list',
    match: /^5\d\d 5\.7\.\d+ .*(block list|banned sending IP|banned sender|not accepted from this IP)/i,
    category: 'spam_block',
    action: 'defer',
    bounceType: 'Transient',
    subType: 'General',
    blocklisting: true,
    example:
      "550 5.7.1 Unfortunately, messages from [192.0.2.1] weren't sent. Please contact your Internet service provider since part of their network is on our block list (S3150). You can also refer your provider to http://mail.live.com/mail/troubleshooting.aspx#errors. [AM2PEPF0001C70F.eurprd02.prod.outlook.com]",
  },
  {
    id: 'ip-reputation',
    match:
      /^[45]\d\d \S+ .*(reputation of the sending IP|IP reputation|poor reputation|bad reputation|identified as (a )?spammer)/i,
    category: 'spam_block',
    action: 'defer',
    bounceType: 'Transient',
    subType: 'General',
    blocklisting: true,
    example:
      '421-4.7.0 [192.0.2.1] Our system has detected that this message is suspicious due to the very low reputation of the sending IP address. To protect our users from spam, mail sent from your IP address has been temporarily rate limited. - gsmtp',
  },
  {
    id: 'ip-not-authorized',
    match: /^5\d\d \S+ .*(IP you're using to send mail is not authorized|dynamic IP|dial-?up|residential IP)/i,
    category: 'spam_block',
    action: 'defer',
    bounceType: 'Transient',
    subType: 'General',
    blocklisting: true,
    example:
      "550-5.7.1 [192.0.2.1] The IP you're using to send mail is not authorized to send email directly to our servers. Please use the SMTP relay at your service provider instead. - gsmtp",
  },

  // Spam scoring of the message itself (after the IP rules: "spam" appears in those too).
  {
    id: 'spam-content',
    match: /^5\d\d \S+ .*\b(spam|unsolicited|junk ?mail|content filter|message content)/i,
    category: 'content_rejected',
    action: 'bounce',
    bounceType: 'Transient',
    subType: 'ContentRejected',
    example:
      '550-5.7.1 [192.0.2.1] Our system has detected that this message is likely unsolicited mail. To reduce the amount of spam sent to Gmail, this message has been blocked. Please visit https://support.google.com/mail/?p=UnsolicitedMessageError for more information. - gsmtp',
  },

  // Rate limits: slow down and retry. Some are driven by complaints about our IP: a strike.
  {
    id: 'gmail-ip-rate-limited',
    match: /^4\d\d 4\.7\.28 /,
    category: 'rate_limited',
    action: 'defer',
    bounceType: 'Transient',
    subType: 'General',
    blocklisting: true,
    example:
      '421-4.7.28 [192.0.2.1 15] Our system has detected an unusual rate of unsolicited mail originating from your IP address. To protect our users from spam, mail sent from your IP address has been temporarily rate limited. Please visit https://support.google.com/mail/?p=UnsolicitedRateLimitError to review our Bulk Email Senders Guidelines. - gsmtp',
  },
  {
    id: 'yahoo-deferred',
    match: /^4\d\d \S+ .*(\[TSS?\d\d\]|temporarily deferred due to (unexpected volume|user complaints))/i,
    category: 'rate_limited',
    action: 'defer',
    bounceType: 'Transient',
    subType: 'General',
    blocklisting: true,
    example:
      '421 4.7.0 [TSS04] Messages from 192.0.2.1 temporarily deferred due to unexpected volume or user complaints - 4.16.55.1; see https://postmaster.yahooinc.com/error-codes',
  },
  {
    id: 'server-busy',
    match: /^4\d\d (4\.7\.500 |\S+ .*\bserver busy\b)/i,
    category: 'rate_limited',
    action: 'defer',
    bounceType: 'Transient',
    subType: 'General',
    example:
      '451 4.7.500 Server busy. Please try again later from [192.0.2.1]. (S77719) [BN8NAM12FT045.eop-nam12.prod.protection.outlook.com]',
  },
  {
    id: 'recipient-receiving-too-fast',
    match: /^[45]\d\d \S+ .*receiving mail (too quickly|at a rate)/i,
    category: 'rate_limited',
    action: 'defer',
    bounceType: 'Transient',
    subType: 'General',
    example:
      '450-4.2.1 The user you are trying to contact is receiving mail too quickly. Please resend your message at a later time. If the user is able to receive mail at that time, your message will be delivered. - gsmtp',
  },
  {
    id: 'too-many-recipients',
    match: /^[45]\d\d ([45]\.5\.3 |\S+ .*too many recipients)/i,
    category: 'rate_limited',
    action: 'defer',
    bounceType: 'Transient',
    subType: 'General',
    example: '452 4.5.3 Error: too many recipients',
  },
  {
    id: 'rate-limited',
    match:
      /^[45]\d\d \S+ .*(rate.?limit|too many (connections|concurrent|messages|mails|emails)|throttl|exceeded .*(rate|quota) for)/i,
    category: 'rate_limited',
    action: 'defer',
    bounceType: 'Transient',
    subType: 'General',
    example: '421 4.7.0 Too many concurrent SMTP connections from this IP address; please try again later.',
  },

  // A server that will not relay: the MX records point somewhere that does not take this domain.
  {
    id: 'relay-denied',
    match:
      /^5\d\d \S+ .*(relay(ing)? (access )?(denied|not permitted|prohibited|not allowed)|unable to relay|not permitted to relay|authentication required)/i,
    category: 'relay_denied',
    action: 'bounce',
    bounceType: 'Permanent',
    subType: 'General',
    example: '554 5.7.1 <jane@example.org>: Relay access denied',
  },

  // Our envelope sender refused (the return-path domain): never the recipient's fault.
  {
    id: 'sender-rejected',
    match: /^5\d\d (5\.1\.[78] |\S+ .*sender (address|domain) (rejected|does not exist|not found))/i,
    category: 'policy',
    action: 'bounce',
    bounceType: 'Permanent',
    subType: 'General',
    example: '553 5.1.8 <bounces+1f0b2c@mail.example.com>: Sender address rejected: Domain not found',
  },
  {
    id: 'sender-rejected-temporary',
    match: /^4\d\d (4\.1\.[78] |\S+ .*sender (address|domain) (rejected|does not exist|not found))/i,
    category: 'policy',
    action: 'defer',
    bounceType: 'Transient',
    subType: 'General',
    example: '450 4.1.8 <bounces+1f0b2c@mail.example.com>: Sender address rejected: Domain not found',
  },

  // The recipient's domain does not exist (before the mailbox rules: both say "not found").
  {
    id: 'domain-unknown',
    match:
      /^5\d\d (5\.1\.2 |5\.4\.4 |\S+ .*(domain (name )?(not found|does not exist|doesn't exist)|no such domain|host or domain name not found|unrouteable address))/i,
    category: 'domain_unknown',
    action: 'bounce',
    bounceType: 'Permanent',
    subType: 'General',
    example: '550 5.1.2 <jane@example.invalid>: Recipient address rejected: Domain not found',
  },
  {
    id: 'domain-unknown-temporary',
    match: /^4\d\d (4\.1\.2 |4\.4\.4 |\S+ .*(domain (name )?not found|no such domain|host or domain name not found))/i,
    category: 'domain_unknown',
    action: 'defer',
    bounceType: 'Transient',
    subType: 'General',
    example: '450 4.1.2 <jane@example.org>: Recipient address rejected: Domain not found',
  },

  // The mailbox does not exist or is closed: a hard bounce, the address is suppressed.
  {
    id: 'microsoft-recipient-not-found',
    match: /^5\d\d 5\.4\.1 .*recipient address rejected: access denied/i,
    category: 'mailbox_unknown',
    action: 'bounce',
    bounceType: 'Permanent',
    subType: 'General',
    example:
      '550 5.4.1 Recipient address rejected: Access denied. For more information see https://aka.ms/EXOSmtpErrors [DB3PEPF0000885A.eurprd02.prod.outlook.com]',
  },
  {
    id: 'microsoft-mailbox-unavailable',
    match: /^5\d\d \S+ requested action not taken: mailbox unavailable/i,
    category: 'mailbox_unknown',
    action: 'bounce',
    bounceType: 'Permanent',
    subType: 'General',
    example: '550 5.5.0 Requested action not taken: mailbox unavailable',
  },
  {
    id: 'mailbox-disabled',
    match:
      /^5\d\d (5\.2\.1 |\S+ .*(account|mailbox|user) (has been |is )?(disabled|deactivated|inactive|suspended|expired|closed))/i,
    category: 'mailbox_unknown',
    action: 'bounce',
    bounceType: 'Permanent',
    subType: 'General',
    example:
      '550-5.2.1 The email account that you tried to reach is disabled. Learn more at https://support.google.com/mail/?p=DisabledUser - gsmtp',
  },
  {
    id: 'mailbox-unknown',
    match:
      /^5\d\d (5\.1\.(1|6|10) |\S+ .*(user unknown|unknown user|no such (user|mailbox|recipient|address)|does not exist|doesn't exist|doesn't have an? \S+ account|mailbox (not found|does not exist)|recipient not found|RecipientNotFound|unknown recipient|invalid (recipient|mailbox)|not a valid (mailbox|recipient|user)))/i,
    category: 'mailbox_unknown',
    action: 'bounce',
    bounceType: 'Permanent',
    subType: 'General',
    example:
      "550-5.1.1 The email account that you tried to reach does not exist. Please try double-checking the recipient's email address for typos or unnecessary spaces. Learn more at https://support.google.com/mail/?p=NoSuchUser - gsmtp",
  },
  {
    id: 'mailbox-unknown-temporary',
    match:
      /^4\d\d (4\.1\.1 |\S+ .*(user unknown|unknown user|no such (user|mailbox|recipient)|recipient not found|unknown recipient))/i,
    category: 'mailbox_unknown',
    action: 'defer',
    bounceType: 'Transient',
    subType: 'General',
    example: '450 4.1.1 <jane@example.org>: Recipient address rejected: User unknown in local recipient table',
  },

  // Any other security or policy refusal (X.7.X), or a reply that says "policy".
  {
    id: 'policy',
    match: /^5\d\d (5\.7\.\d+ |\S+ .*\bpolic(y|ies)\b)/i,
    category: 'policy',
    action: 'bounce',
    bounceType: 'Permanent',
    subType: 'General',
    example: '554 5.7.9 Message not accepted for policy reasons. See https://postmaster.yahooinc.com/error-codes',
  },
  {
    id: 'policy-temporary',
    match: /^4\d\d (4\.7\.\d+ |\S+ .*\bpolic(y|ies)\b)/i,
    category: 'policy',
    action: 'defer',
    bounceType: 'Transient',
    subType: 'General',
    example: '421-4.7.0 [192.0.2.1] Try again later, closing connection. (EHLO) - gsmtp',
  },

  // Fallbacks by reply class.
  {
    id: 'temporary',
    match: /^4\d\d /,
    category: 'unknown_temporary',
    action: 'defer',
    bounceType: 'Transient',
    subType: 'General',
    example: '421-4.3.0 Temporary System Problem. Try again later (10). - gsmtp',
  },
  {
    id: 'permanent',
    match: /^5\d\d /,
    category: 'unknown_permanent',
    action: 'bounce',
    bounceType: 'Permanent',
    subType: 'General',
    example: '554 5.0.0 Service unavailable',
  },
];
