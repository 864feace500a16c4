import { isatty } from 'node:tty';
import { pino, type Logger } from 'pino';
import { PinoPretty } from 'pino-pretty';

export type { Logger };

export type LoggerOptions = {
  name?: string;
  /** Commands that print JSON on stdout log to stderr (fd 2) so their output stays parseable. */
  fd?: 1 | 2;
  /**
   * Human-readable lines when the log goes to a terminal (development): JSON otherwise, always
   * when it goes to a pipe, a file or journald, so nothing that reads logs has to guess.
   */
  pretty?: boolean;
};

/** JSON logs (journald keeps them); secrets never reach a log line. */
export function createLogger(level: string, options: LoggerOptions = {}): Logger {
  const fd = options.fd ?? 1;
  const destination =
    options.pretty && isatty(fd)
      ? PinoPretty({ destination: fd, sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' })
      : pino.destination({ fd, sync: true });
  return pino(
    {
      name: options.name ?? 'mailroom',
      level,
      redact: {
        paths: ['req.headers.authorization', 'headers.authorization', '*.token', '*.password', '*.masterKey'],
        censor: '[redacted]',
      },
    },
    destination,
  );
}
