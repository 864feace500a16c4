import type { ProviderRule } from './shaping.types.js';

/**
 * The large mailbox providers, matched by the MX host names of a recipient domain (so a Google
 * Workspace or Microsoft 365 domain gets its provider's rule). Numbers are per sending address
 * and deliberately below what the providers tolerate from an address with a good reputation:
 * an address that earns more is given more in `mta.shaping.providers`. Limits a provider does
 * not publish are the common practice of large senders (Postfix transport limits, KumoMTA's
 * community shaping file), noted as such.
 */
export const DEFAULT_PROVIDER_RULES: ProviderRule[] = [
  {
    name: 'gmail',
    mx: ['google.com', 'googlemail.com'],
    maxConnections: 20,
    messagesPerConnection: 100,
    tlsRequired: true,
    source:
      'Google "Email sender guidelines" (support.google.com/a/answer/81126): TLS required for bulk senders since 2024; 421-4.7.28 means the rate is too high. Connections and per-connection counts: KumoMTA community shaping (gmail.com: connection_limit 20... max_deliveries_per_connection 50-100).',
  },
  {
    name: 'yahoo',
    mx: ['yahoodns.net', 'yahoo.com', 'aol.com'],
    maxConnections: 10,
    messagesPerConnection: 20,
    source:
      'Yahoo Sender Hub best practices (senders.yahooinc.com): TSS04 deferrals when volume rises too fast; few messages per connection. Yahoo and AOL share MX (mta*.am0.yahoodns.net).',
  },
  {
    name: 'microsoft',
    mx: ['protection.outlook.com', 'hotmail.com', 'outlook.com', 'msn.com', 'live.com'],
    maxConnections: 10,
    messagesPerConnection: 50,
    source:
      'Microsoft "Outlook.com postmaster" (sendersupport.olc.protection.outlook.com/pm/): S3150 block list, 4.7.650 throttling by IP reputation; KumoMTA community shaping (outlook.com: connection_limit 10).',
  },
  {
    name: 'apple',
    mx: ['icloud.com', 'me.com', 'mac.com'],
    maxConnections: 10,
    messagesPerConnection: 50,
    source:
      'Apple "Postmaster information for iCloud Mail" (support.apple.com/102322): throttles by IP; moderate connections.',
  },
  {
    name: 'orange',
    mx: ['orange.fr', 'wanadoo.fr'],
    maxConnections: 3,
    messagesPerConnection: 100,
    messagesPerHour: 20_000,
    source:
      'Orange postmaster (postmaster.orange.fr): few simultaneous connections per IP, OFR004/OFR_999 replies when exceeded.',
  },
  {
    name: 'gmx',
    mx: ['gmx.net', 'web.de', 'emig.gmx.net', 'kundenserver.de'],
    maxConnections: 5,
    messagesPerConnection: 50,
    tlsRequired: true,
    source: 'GMX/WEB.DE postmaster (postmaster.gmx.net, postmaster.web.de): TLS mandatory; connection limits per IP.',
  },
  {
    name: 'mailru',
    mx: ['mail.ru'],
    maxConnections: 5,
    messagesPerConnection: 50,
    source: 'Mail.ru postmaster (postmaster.mail.ru): rate limits per IP answered with 421 "Ratelimit".',
  },
  {
    name: 'yandex',
    mx: ['yandex.net', 'yandex.ru'],
    maxConnections: 5,
    messagesPerConnection: 50,
    source: 'Yandex postmaster (yandex.com/support/postoffice): per-IP limits; common practice.',
  },
  {
    name: 'comcast',
    mx: ['comcast.net'],
    maxConnections: 5,
    messagesPerConnection: 100,
    source:
      'Comcast postmaster (postmaster.comcast.net): RL000001/RL000010 replies when too many connections or messages.',
  },
  {
    name: 't-online',
    mx: ['t-online.de'],
    maxConnections: 3,
    messagesPerConnection: 50,
    source: 'Deutsche Telekom postmaster (postmaster.t-online.de): few connections per IP; unknown IPs are refused.',
  },
  {
    name: 'free',
    mx: ['free.fr'],
    maxConnections: 3,
    messagesPerConnection: 50,
    source: 'Free.fr: 421 "Too many spams from your IP" when exceeded; common practice.',
  },
  {
    name: 'laposte',
    mx: ['laposte.net'],
    maxConnections: 3,
    messagesPerConnection: 50,
    source: 'La Poste: common practice of French senders.',
  },
  {
    name: 'qq',
    mx: ['qq.com'],
    maxConnections: 5,
    messagesPerConnection: 20,
    source: 'Tencent QQ Mail: common practice.',
  },
  {
    name: 'zoho',
    mx: ['zoho.com', 'zoho.eu'],
    maxConnections: 5,
    messagesPerConnection: 50,
    source: 'Zoho Mail: common practice.',
  },
];
