/**
 * Postfix's master.cf for the benchmarks: the upstream defaults (no chroot), with an smtpd on a
 * loopback port when one is wanted, pickup when the maildrop is to be read, and the delivery
 * agents a relay needs (smtp, local, virtual, lmtp) only when it relays.
 */
export function postfixMasterCf(options: {
  smtpd?: { port: number; processes?: number };
  pickup?: boolean;
  relay?: boolean;
}): string {
  const { smtpd } = options;
  const services = [
    ...(smtpd
      ? [`127.0.0.1:${smtpd.port} inet n       -       n       -       ${smtpd.processes ?? '-'}     smtpd`]
      : []),
    ...(options.pickup ? ['pickup    unix  n       -       n       60      1       pickup'] : []),
    'cleanup   unix  n       -       n       -       0       cleanup',
    'qmgr      unix  n       -       n       300     1       qmgr',
    'tlsmgr    unix  -       -       n       1000?   1       tlsmgr',
    'rewrite   unix  -       -       n       -       -       trivial-rewrite',
    'bounce    unix  -       -       n       -       0       bounce',
    'defer     unix  -       -       n       -       0       bounce',
    'trace     unix  -       -       n       -       0       bounce',
    'verify    unix  -       -       n       -       1       verify',
    'flush     unix  n       -       n       1000?   0       flush',
    'proxymap  unix  -       -       n       -       -       proxymap',
    'proxywrite unix -       -       n       -       1       proxymap',
    ...(options.relay
      ? [
          'smtp      unix  -       -       n       -       -       smtp',
          'relay     unix  -       -       n       -       -       smtp',
        ]
      : []),
    'showq     unix  n       -       n       -       -       showq',
    'error     unix  -       -       n       -       -       error',
    'retry     unix  -       -       n       -       -       error',
    'discard   unix  -       -       n       -       -       discard',
    ...(options.relay
      ? [
          'local     unix  -       n       n       -       -       local',
          'virtual   unix  -       n       n       -       -       virtual',
          'lmtp      unix  -       -       n       -       -       lmtp',
        ]
      : []),
    'anvil     unix  -       -       n       -       1       anvil',
    'scache    unix  -       -       n       -       1       scache',
    'postlog   unix-dgram n  -       n       -       1       postlogd',
  ];
  return `${services.join('\n')}\n`;
}
