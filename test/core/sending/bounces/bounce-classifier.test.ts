import t from 'tap';
import { classifyConnectionFailure, classifyReply } from '../../../../core/sending/bounces/bounce-classifier.js';
import { BOUNCE_RULES } from '../../../../core/sending/bounces/bounce-rules.js';
import { BOUNCE_CATEGORIES } from '../../../../core/sending/bounces/bounce.types.js';
import { CONNECTION_RULES } from '../../../../core/sending/bounces/connection-rules.js';
import { parseReply } from '../../../../core/sending/bounces/reply-parser.js';

/** The sub-types the SDK family allows under each bounce type. */
const SUB_TYPES = {
  Permanent: ['General', 'NoEmail', 'Suppressed', 'OnAccountSuppressionList'],
  Transient: ['General', 'MailboxFull', 'MessageTooLarge', 'ContentRejected', 'AttachmentRejected'],
  Undetermined: ['Undetermined'],
};

t.test('every rule classifies its own example', async (t) => {
  for (const rule of BOUNCE_RULES) {
    const verdict = classifyReply(rule.example);
    t.equal(verdict.rule, rule.id, `${rule.id}: ${rule.example.slice(0, 60)}`);
    t.equal(verdict.category, rule.category);
    t.equal(verdict.action, rule.action);
    t.equal(verdict.bounce.type, rule.bounceType);
    t.equal(verdict.bounce.subType, rule.subType);
    t.equal(verdict.blocklisting, rule.blocklisting === true);
  }
});

t.test('the rule table is well formed', async (t) => {
  const ids = BOUNCE_RULES.map((rule) => rule.id);
  t.equal(new Set(ids).size, ids.length, 'ids are unique');
  const used = new Set(BOUNCE_RULES.map((rule) => rule.category));
  for (const category of BOUNCE_CATEGORIES.filter((c) => c !== 'connection_failure'))
    t.ok(used.has(category), `a rule for ${category}`);
  for (const rule of BOUNCE_RULES) {
    t.ok(
      SUB_TYPES[rule.bounceType].includes(rule.subType),
      `${rule.id}: ${rule.bounceType}/${rule.subType} is an SDK pair`,
    );
    if (rule.action === 'defer') t.equal(rule.bounceType, 'Transient', `${rule.id}: a deferral is Transient`);
  }
  t.same(ids.slice(-2), ['temporary', 'permanent'], 'the class fallbacks come last');
});

t.test('replies seen in the wild beyond the examples', async (t) => {
  const cases: Array<[reply: string, rule: string]> = [
    ['550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient not found by SMTP address lookup', 'mailbox-unknown'],
    [
      "554 delivery error: dd This user doesn't have a yahoo.com account (jane@yahoo.com) [0] - mta4012.mail.bf1.yahoo.com",
      'mailbox-unknown',
    ],
    [
      '554 delivery error: dd Sorry your message to jane@yahoo.com cannot be delivered. This mailbox is disabled (554.30). - mta1234.mail.gq1.yahoo.com',
      'mailbox-disabled',
    ],
    ['550 #5.1.1 <jane@example.org>... User unknown', 'mailbox-unknown'],
    [
      '550 5.1.1 <jane@example.org>: Recipient address rejected: User unknown in virtual mailbox table',
      'mailbox-unknown',
    ],
    [
      '554 resimta-ch2-18v.sys.comcast.net resimta-ch2-18v.sys.comcast.net 192.0.2.1 found on one or more DNSBLs, see http://postmaster.comcast.net/smtp-error-codes.php#BL000001',
      'ip-blocklisted',
    ],
    [
      "553 5.7.1 [BL21] Connections will not be accepted from 192.0.2.1, because the ip is in Spamhaus's list; see https://postmaster.yahooinc.com/error-codes",
      'ip-blocklisted',
    ],
    ['550 5.2.1 Mailbox unavailable. Your IP address 192.0.2.1 is blacklisted using SPAMHAUS-XBL.', 'ip-blocklisted'],
    [
      '550 5.7.606 Access denied, banned sending IP [192.0.2.1]. To request removal from this list please visit https://sender.office.com/',
      'microsoft-block-list',
    ],
    [
      '451 4.7.650 The mail server [192.0.2.1] has been temporarily rate limited due to IP reputation.',
      'ip-reputation',
    ],
    [
      '550 5.7.64 TenantAttribution; Relay Access Denied [SN1NAM02FT0033.eop-nam02.prod.protection.outlook.com]',
      'relay-denied',
    ],
    ['530 5.7.0 Authentication required', 'relay-denied'],
    [
      '550-5.7.26 This mail has been blocked because the sender is unauthenticated. Gmail requires all senders to authenticate with either SPF or DKIM.',
      'auth-spf-dkim',
    ],
    [
      '550 5.7.509 Access denied, sending domain example.com does not pass DMARC verification and has a DMARC policy of reject.',
      'auth-dmarc',
    ],
    ['552-5.2.2 The email account that you tried to reach is over quota and inactive.', 'mailbox-full'],
    [
      '554 5.2.2 mailbox full; STOREDRV.Deliver.Exception:QuotaExceededException.MapiExceptionShutoffQuotaExceeded',
      'mailbox-full',
    ],
    [
      "552-5.3.4 Your message exceeded Google's message size limits. Please visit https://support.google.com/mail/?p=MaxSizeError to view our size guidelines.",
      'message-too-large',
    ],
    ['552 5.3.4 Message with attachments exceeds the size limit', 'message-too-large'],
    [
      '450 4.2.0 <jane@example.org>: Recipient address rejected: Greylisted, see http://postgrey.schweikert.ch/help/example.org.html',
      'greylisted',
    ],
    [
      '550-5.2.1 The user you are trying to contact is receiving mail at a rate that prevents additional messages from being delivered.',
      'recipient-receiving-too-fast',
    ],
    ['552 5.5.3 Too many recipients', 'too-many-recipients'],
    [
      '550 5.7.1 [CS01] Message rejected due to local policy. Please visit https://support.apple.com/en-us/HT204137',
      'policy',
    ],
    ['550 Administrative prohibition', 'permanent'],
    ['451 4.3.5 Server configuration problem', 'temporary'],
  ];
  for (const [reply, rule] of cases) t.equal(classifyReply(reply).rule, rule, reply.slice(0, 70));
});

t.test('fallbacks by reply class, and replies that are no failure', async (t) => {
  const temporary = classifyReply('451 Local error in processing');
  t.match(temporary, {
    rule: 'temporary',
    category: 'unknown_temporary',
    action: 'defer',
    bounce: { type: 'Transient', subType: 'General' },
    hardBounce: false,
  });
  const permanent = classifyReply({ code: 554, text: 'Transaction failed' });
  t.match(permanent, {
    rule: 'permanent',
    category: 'unknown_permanent',
    action: 'bounce',
    bounce: { type: 'Permanent', subType: 'General' },
    hardBounce: false,
  });
  for (const reply of ['', 'connection lost somewhere', '250 2.0.0 OK queued as 4B7C3', { code: 0, text: 'no code' }]) {
    t.match(
      classifyReply(reply),
      {
        rule: 'unparseable',
        action: 'defer',
        bounce: { type: 'Undetermined', subType: 'Undetermined' },
        delayType: 'Undetermined',
      },
      JSON.stringify(reply),
    );
  }
});

t.test('multi-line replies are joined', async (t) => {
  const gmail = [
    '550-5.1.1 The email account that you tried to reach does not exist. Please try',
    "550-5.1.1 double-checking the recipient's email address for typos or",
    '550-5.1.1 unnecessary spaces. Learn more at',
    '550 5.1.1  https://support.google.com/mail/?p=NoSuchUser a1si123 - gsmtp',
  ];
  const joined =
    "The email account that you tried to reach does not exist. Please try double-checking the recipient's email address for typos or unnecessary spaces. Learn more at https://support.google.com/mail/?p=NoSuchUser a1si123 - gsmtp";
  for (const text of [gmail.join('\n'), gmail.join('\r\n')]) {
    t.same(parseReply(text), { code: 550, enhanced: '5.1.1', text: joined });
    const verdict = classifyReply({ code: 550, text });
    t.equal(verdict.rule, 'mailbox-unknown');
    t.same(verdict.bounce.diagnosticCode, [`smtp; 550 5.1.1 ${joined}`]);
  }
  t.same(parseReply('250-mx.example.org at your service\n250-SIZE 35882577\n250-8BITMIME\n250 SMTPUTF8'), {
    code: 250,
    enhanced: null,
    text: 'mx.example.org at your service SIZE 35882577 8BITMIME SMTPUTF8',
  });
  t.same(parseReply({ code: 550, enhanced: '5.1.1', text: 'User unknown' }), {
    code: 550,
    enhanced: '5.1.1',
    text: 'User unknown',
  });
  t.same(
    parseReply({ code: 421, text: '421 4.7.0 [TSS04] Messages deferred' }),
    { code: 421, enhanced: '4.7.0', text: '[TSS04] Messages deferred' },
    'a text that repeats its code',
  );
  t.equal(classifyReply({ code: 550, enhanced: '5.1.1', text: 'No such mailbox here' }).rule, 'mailbox-unknown');
});

t.test('only a permanent unknown mailbox or domain is a hard bounce', async (t) => {
  for (const rule of BOUNCE_RULES) {
    const expected =
      rule.action === 'bounce' && (rule.category === 'mailbox_unknown' || rule.category === 'domain_unknown');
    t.equal(classifyReply(rule.example).hardBounce, expected, `${rule.id}: hardBounce ${expected}`);
  }
  t.ok(classifyReply('550 5.1.1 User unknown').hardBounce);
  t.ok(classifyReply('550 5.1.2 Host or domain name not found').hardBounce);
  t.notOk(classifyReply('450 4.1.1 User unknown').hardBounce, 'a temporary unknown user is retried, not suppressed');
  t.notOk(
    classifyReply('554 5.7.1 Service unavailable; Client host [192.0.2.1] blocked using zen.spamhaus.org').hardBounce,
    'a blocklisted IP does not suppress the recipient',
  );
  t.notOk(classifyReply('550 5.7.1 Message rejected due to local policy').hardBounce, 'nor does a policy refusal');
  t.notOk(classifyReply('552 5.2.2 Mailbox full').hardBounce, 'nor a full mailbox');
});

t.test('bounce fields follow the SDK family', async (t) => {
  const verdict = classifyReply('550 5.5.0 Requested action not taken: mailbox unavailable');
  t.same(verdict.bounce, {
    type: 'Permanent',
    subType: 'General',
    message: "The recipient's mail server reports that the address does not exist or no longer accepts mail.",
    diagnosticCode: ['smtp; 550 5.5.0 Requested action not taken: mailbox unavailable'],
  });
  t.equal(classifyReply('552 5.2.2 Mailbox full').delayType, 'MailboxFull');
  t.equal(classifyReply(BOUNCE_RULES.find((r) => r.id === 'ip-blocklisted')!.example).delayType, 'IPFailure');
  t.match(classifyReply(BOUNCE_RULES.find((r) => r.id === 'attachment-rejected')!.example).bounce, {
    type: 'Transient',
    subType: 'AttachmentRejected',
    message: /attachment/,
  });
});

t.test('connection failures are deferred with a clear message', async (t) => {
  for (const rule of CONNECTION_RULES) {
    const [code, ...rest] = rule.example.split(' ');
    for (const failure of [rule.example, `${code}: ${rest.join(' ')}`, { code, message: rest.join(' ') }]) {
      const verdict = classifyConnectionFailure(failure);
      t.equal(verdict.rule, rule.id, `${rule.id}: ${JSON.stringify(failure).slice(0, 60)}`);
      t.match(verdict, {
        category: 'connection_failure',
        action: 'defer',
        bounce: { type: 'Transient', subType: 'General' },
        delayType: 'TransientCommunicationFailure',
        hardBounce: false,
        blocklisting: false,
      });
      t.ok(verdict.bounce.message.startsWith(rule.message));
    }
  }
  t.match(
    classifyConnectionFailure('ECONNREFUSED: connect ECONNREFUSED 192.0.2.10:25').bounce.message,
    'The server refused the connection. (ECONNREFUSED connect ECONNREFUSED 192.0.2.10:25)',
  );
  t.equal(
    classifyConnectionFailure({ code: 'ETLS', message: 'Error upgrading connection with STARTTLS' }).rule,
    'starttls-unavailable',
  );
  t.equal(classifyConnectionFailure({}).rule, 'connection-failed', 'nothing known still defers');
});
