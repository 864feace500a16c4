/**
 * Mailbox providers that carry most of the mail anywhere: always their own label value, so a
 * dashboard can follow them however late in a process's life they first appear.
 */
const LARGE_PROVIDERS = [
  'gmail.com',
  'googlemail.com',
  'outlook.com',
  'hotmail.com',
  'live.com',
  'msn.com',
  'yahoo.com',
  'ymail.com',
  'aol.com',
  'icloud.com',
  'me.com',
  'mac.com',
  'proton.me',
  'protonmail.com',
  'gmx.de',
  'gmx.net',
  'web.de',
  'yandex.ru',
  'mail.ru',
  'comcast.net',
];

/**
 * Destination domains as a Prometheus label with bounded cardinality: the large providers, then
 * the first `extra` other domains this process sees (in a process's life the busy destinations
 * show up early), and `other` for the rest. A process therefore exports at most
 * LARGE_PROVIDERS + extra + 1 values, however many domains it mails.
 */
export class DomainLabels {
  private readonly known = new Set(LARGE_PROVIDERS);
  private extraLeft: number;

  constructor(extra = 30) {
    this.extraLeft = extra;
  }

  of(domain: string): string {
    const name = domain.toLowerCase();
    if (this.known.has(name)) return name;
    if (this.extraLeft > 0 && /^[a-z0-9.-]{1,253}$/.test(name)) {
      this.extraLeft -= 1;
      this.known.add(name);
      return name;
    }
    return 'other';
  }
}

/** The class of an SMTP reply by its first digit (2xx, 4xx, 5xx); anything else is `other`. */
export function replyClass(reply: string): string {
  const digit = /^\s*([2-5])\d\d/.exec(reply)?.[1];
  return digit ? `${digit}xx` : 'other';
}
