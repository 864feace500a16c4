import { pino, type Logger } from 'pino';

export type { Logger };

/** JSON logs (journald keeps them); secrets never reach a log line. */
export function createLogger(level: string, options: { name?: string; fd?: 1 | 2 } = {}): Logger {
  return pino(
    {
      name: options.name ?? 'mailroom',
      level,
      redact: {
        paths: ['req.headers.authorization', 'headers.authorization', '*.token', '*.password', '*.masterKey'],
        censor: '[redacted]',
      },
    },
    // Commands that print JSON on stdout log to stderr (fd 2) so their output stays parseable.
    pino.destination({ fd: options.fd ?? 1, sync: true }),
  );
}
