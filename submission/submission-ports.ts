import type { Config } from '../lib/config/config.schema.js';

/** The submission ports in effect: configured, or the standard ones in production and unprivileged ones elsewhere. */
export function submissionPorts(config: Config): { port: number; tlsPort: number } {
  const production = config.env === 'production';
  return {
    port: config.submission.port ?? (production ? 587 : 2587),
    tlsPort: config.submission.tlsPort ?? (production ? 465 : 2465),
  };
}
