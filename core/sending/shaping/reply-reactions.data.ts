import type { ReactionRule } from './shaping.types.js';

/**
 * Replies that say "slow down" or "stop for now", and what Mailroom does about them for the
 * (provider, egress address) that drew them. The message that drew the reply is retried on the
 * retry schedule (never bounced for it). First match wins; the generic rules come last.
 */
export const DEFAULT_REPLY_REACTIONS: ReactionRule[] = [
  {
    id: 'gmail-rate-limit',
    providers: ['gmail'],
    codes: [421, 450, 451],
    enhanced: ['4.7.28'],
    action: 'slow',
    source: 'Google: "421-4.7.28 ... unusual rate of unsolicited mail" (support.google.com/a/answer/3726730)',
    example:
      '421-4.7.28 [192.0.2.1] Our system has detected an unusual rate of unsolicited mail originating from your IP address.',
  },
  {
    id: 'gmail-temporarily-blocked',
    providers: ['gmail'],
    codes: [421, 451],
    enhanced: ['4.7.0'],
    text: 'rate|temporarily rate limited|unusual|suspicious',
    action: 'pause',
    pauseSeconds: 1800,
    source: 'Google SMTP error reference: 421 4.7.0 "... temporarily rate limited ... suspicious traffic"',
    example:
      '421 4.7.0 [192.0.2.1] Our system has detected that this message is suspicious due to the very low reputation.',
  },
  {
    id: 'yahoo-tss04',
    providers: ['yahoo'],
    text: 'TSS04',
    action: 'pause',
    pauseSeconds: 1800,
    source:
      'Yahoo Sender Hub, SMTP error codes: TSS04 "temporarily deferred due to unexpected volume or user complaints"',
    example:
      '421 4.7.0 [TSS04] Messages from 192.0.2.1 temporarily deferred due to unexpected volume or user complaints - 4.16.55.1; see https://postmaster.yahooinc.com/error-codes',
  },
  {
    id: 'yahoo-tsa',
    providers: ['yahoo'],
    text: 'TS[AS]0[1-3]',
    action: 'slow',
    source: 'Yahoo Sender Hub: TSS01-03 / TSA01-03 deferrals by volume',
    example: '421 4.7.1 [TSS01] All messages from 192.0.2.1 will be permanently deferred; Retrying will NOT succeed.',
  },
  {
    id: 'microsoft-block-list',
    providers: ['microsoft'],
    text: 'S3150|S3140|S3114',
    action: 'pause',
    pauseSeconds: 6 * 3600,
    source: 'Outlook.com postmaster: S3150 "part of their network is on our block list"',
    example:
      "550 5.7.1 Unfortunately, messages from [192.0.2.1] weren't sent. Please contact your Internet service provider since part of their network is on our block list (S3150).",
  },
  {
    id: 'microsoft-throttled',
    providers: ['microsoft'],
    text: '4\\.7\\.650|rate limited|throttl|server busy',
    action: 'slow',
    source: 'Exchange Online: 451 4.7.650 "temporarily rate limited due to IP reputation"',
    example: '451 4.7.650 The mail server [192.0.2.1] has been temporarily rate limited due to IP reputation.',
  },
  {
    id: 'orange-throttled',
    providers: ['orange'],
    text: 'OFR004|OFR_999|OFR_416',
    action: 'slow',
    source: 'Orange postmaster: OFR codes for too many connections or messages',
    example: '421 mwinf5c21 ME Service refuse. Veuillez essayer plus tard. OFR004_104 [104]',
  },
  {
    id: 'gmx-throttled',
    providers: ['gmx'],
    text: 'too many|rate|temporarily|service unavailable|policy restrictions',
    codes: [421, 450, 451],
    action: 'slow',
    source: 'GMX/WEB.DE postmaster: 421 replies when limits per IP are exceeded',
    example:
      '421-gmx.net (mxgmx117) Nemesis ESMTP Service not available 421-Service unavailable 421-Reject due to policy restrictions.',
  },
  {
    id: 'mailru-ratelimit',
    providers: ['mailru'],
    text: 'ratelimit|rate limit',
    action: 'slow',
    source: 'Mail.ru postmaster: 421 "Ratelimit" replies',
    example: '421 4.7.1 Ratelimit (Try again later)',
  },
  {
    id: 'comcast-ratelimit',
    providers: ['comcast'],
    text: 'RL0000',
    action: 'slow',
    source: 'Comcast postmaster: RL000001 too many sessions, RL000010 too many messages',
    example: '421 4.7.0 Too many sessions opened [RL000001]',
  },
  {
    id: 'too-many-connections',
    codes: [421, 450, 451, 452],
    text: 'too many (connections|concurrent|sessions)|connection limit',
    action: 'slow',
    source:
      'Generic: RFC 5321 4.2 421 "Service not available, closing transmission channel" with a connection count reason',
    example: '421 4.7.0 Too many concurrent SMTP connections from this IP address; please try again later',
  },
  {
    id: 'rate-limited',
    codes: [421, 450, 451],
    text: 'rate limit|too many messages|sending too fast|throttl|slow down',
    action: 'slow',
    source: 'Generic: the wording receivers use for per-client rate limits',
    example: '451 4.7.1 Rate limit exceeded, slow down',
  },
];
