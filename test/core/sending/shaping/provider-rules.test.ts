import { readFileSync } from 'node:fs';
import t from 'tap';
import { ProviderMatcher } from '../../../../core/sending/shaping/provider-matcher.js';
import { DEFAULT_PROVIDER_RULES } from '../../../../core/sending/shaping/provider-rules.data.js';
import { ReactionMatcher, replyCodes } from '../../../../core/sending/shaping/reaction-matcher.js';
import { DEFAULT_REPLY_REACTIONS } from '../../../../core/sending/shaping/reply-reactions.data.js';
import { DEFAULT_WARMUP_SCHEDULE } from '../../../../core/sending/shaping/warmup-schedule.data.js';
import type { DnsLookup } from '../../../../lib/dns/dns-resolver.js';

const noLookup = {} as DnsLookup;
const matcher = new ProviderMatcher(DEFAULT_PROVIDER_RULES, [], { maxConnections: 7 }, noLookup);

t.test('providers are recognised by their MX hosts, whatever the recipient domain', async (t) => {
  const cases: Array<[string, string[], string | null]> = [
    ['gmail.com', ['gmail-smtp-in.l.google.com', 'alt1.gmail-smtp-in.l.google.com'], 'gmail'],
    ['example-workspace.com', ['aspmx.l.google.com'], 'gmail'],
    ['googlemail.com', ['gmail-smtp-in.l.google.com'], 'gmail'],
    ['yahoo.com', ['mta5.am0.yahoodns.net'], 'yahoo'],
    ['aol.com', ['mx-aol.mail.gm0.yahoodns.net'], 'yahoo'],
    ['contoso.com', ['contoso-com.mail.protection.outlook.com'], 'microsoft'],
    ['hotmail.com', ['hotmail-com.olc.protection.outlook.com'], 'microsoft'],
    ['icloud.com', ['mx01.mail.icloud.com'], 'apple'],
    ['orange.fr', ['smtp-in.orange.fr'], 'orange'],
    ['web.de', ['mx-ha03.web.de'], 'gmx'],
    ['gmx.de', ['mx00.emig.gmx.net'], 'gmx'],
    ['mail.ru', ['mxs.mail.ru'], 'mailru'],
    ['comcast.net', ['mx1a1.comcast.net'], 'comcast'],
    // A host that only ends with a provider's name is not that provider.
    ['evil.test', ['mx.notgoogle.com'], null],
    ['small.test', ['mx.small.test'], null],
  ];
  for (const [domain, hosts, name] of cases) t.equal(matcher.forHosts(domain, hosts).name, name, `${domain}: ${name}`);
  const generic = matcher.forHosts('Small.Test', ['mx.small.test']);
  t.same(
    generic,
    { key: 'domain:small.test', name: null, limits: { maxConnections: 7 } },
    'a lone domain counts alone',
  );
  t.equal(matcher.forHosts('implicit.test', []).name, null, 'no MX: the domain itself is the host');
});

t.test('configured rules replace built-in ones by name and come first', async (t) => {
  const configured = new ProviderMatcher(
    DEFAULT_PROVIDER_RULES,
    [
      { name: 'gmail', mx: ['google.com'], maxConnections: 50, source: 'ours' },
      { name: 'partner', mx: ['partner.test'], messagesPerHour: 10, source: 'ours' },
    ],
    {},
    noLookup,
  );
  t.equal(configured.forHosts('gmail.com', ['gmail-smtp-in.l.google.com']).limits.maxConnections, 50);
  t.equal(configured.forHosts('x.test', ['mx.partner.test']).name, 'partner');
  t.equal(configured.all().filter((rule) => rule.name === 'gmail').length, 1);
});

t.test('every built-in rule names its source; provider names are unique', async (t) => {
  for (const rule of DEFAULT_PROVIDER_RULES) t.ok(rule.source.length > 20, `${rule.name} has a source`);
  t.equal(new Set(DEFAULT_PROVIDER_RULES.map((r) => r.name)).size, DEFAULT_PROVIDER_RULES.length);
  for (const rule of DEFAULT_REPLY_REACTIONS)
    t.ok(rule.source && rule.example, `${rule.id} has a source and an example`);
  for (const [provider, days] of Object.entries(DEFAULT_WARMUP_SCHEDULE))
    t.ok(
      days.every((n, i) => i === 0 || n >= days[i - 1]!),
      `${provider}'s schedule never goes down`,
    );
});

t.test('each reaction rule matches the real reply it stands beside', async (t) => {
  const reactions = new ReactionMatcher(DEFAULT_REPLY_REACTIONS);
  for (const rule of DEFAULT_REPLY_REACTIONS) {
    const provider = rule.providers?.[0] ?? null;
    t.equal(reactions.match(provider, rule.example)?.id, rule.id, `${rule.id}: ${rule.example.slice(0, 40)}`);
  }
});

t.test('replies that do not ask to slow down draw no reaction', async (t) => {
  const reactions = new ReactionMatcher(DEFAULT_REPLY_REACTIONS);
  t.equal(reactions.match('gmail', '250 2.0.0 OK 1700000000 x1si'), null, 'an acceptance');
  t.equal(reactions.match('gmail', '550-5.1.1 The email account that you tried to reach does not exist.'), null);
  t.equal(reactions.match('yahoo', '421-4.7.28 unusual rate'), null, "Gmail's code from another provider");
  t.equal(reactions.match(null, '452 4.2.2 Mailbox full'), null);
  t.equal(reactions.match(null, '421 4.7.0 Too many concurrent SMTP connections')?.id, 'too-many-connections');
  t.equal(reactions.match('gmail', 'CONNECT: 421-4.7.28 unusual rate')?.id, 'gmail-rate-limit', 'at the greeting too');
});

t.test('reply codes are read from the start of a reply', async (t) => {
  t.same(replyCodes('421-4.7.28 [1.2.3.4] text'), { code: 421, enhanced: '4.7.28' });
  t.same(replyCodes('451 4.7.650 The mail server'), { code: 451, enhanced: '4.7.650' });
  t.same(replyCodes('DATA: 421 busy'), { code: 421, enhanced: null });
  t.same(replyCodes('ECONNRESET: gone'), { code: null, enhanced: null });
});

t.test('the deliverability page names every built-in provider rule and reaction', async (t) => {
  const page = readFileSync(new URL('../../../../docs/operating/deliverability.md', import.meta.url), 'utf8');
  for (const rule of DEFAULT_PROVIDER_RULES) t.match(page, `(\`${rule.name}\`)`, `provider ${rule.name}`);
  for (const rule of DEFAULT_REPLY_REACTIONS) t.match(page, `| \`${rule.id}\` |`, `reaction ${rule.id}`);
});
