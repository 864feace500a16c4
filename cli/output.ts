import { AppError, ConfigError } from '../lib/errors.js';

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Turns a failure into a clear message and an exit code: 2 for configuration, 1 otherwise. */
export function reportFailure(err: unknown): number {
  if (err instanceof ConfigError) {
    process.stderr.write(`${err.message}\n`);
    return 2;
  }
  if (err instanceof AppError) {
    process.stderr.write(`${JSON.stringify(err.toBody(), null, 2)}\n`);
    return 1;
  }
  process.stderr.write(`${(err as Error)?.stack ?? String(err)}\n`);
  return 1;
}
