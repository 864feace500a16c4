import { authenticate, type DNSResolver } from 'mailauth';
import type { AuthenticationResults, InboundEnvelope } from './received-email.types.js';

export type { DNSResolver } from 'mailauth';

/**
 * SPF, DKIM, DMARC and ARC of a received message, computed by mailauth through the configured
 * resolver (tests point it at their own DNS server). A result is a value: a DNS failure shows as
 * `temperror`, and a check that cannot finish in time leaves the results null rather than
 * holding the sender's SMTP session.
 */
export async function authenticateMessage(
  raw: Buffer,
  envelope: InboundEnvelope,
  options: { resolver: DNSResolver; mta: string; timeoutMs: number },
): Promise<AuthenticationResults | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), options.timeoutMs);
  });
  const check = authenticate(raw, {
    ip: envelope.remoteIp ?? undefined,
    helo: envelope.helo ?? undefined,
    sender: envelope.mailFrom,
    mta: options.mta,
    resolver: options.resolver,
    disableBimi: true,
  }).then((result) => ({
    spf: result.spf ? result.spf.status.result : null,
    dkim: result.dkim.results.map((row) => `${row.signingDomain ?? 'unknown'}: ${row.status.result}`),
    dmarc: result.dmarc ? result.dmarc.status.result : null,
    arc: result.arc ? result.arc.status.result : null,
    header: result.headers.split('\r\n').filter(Boolean).at(-1) ?? '',
  }));
  try {
    return await Promise.race([check, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
