import { AppError, ConfigError } from '../lib/errors.js';

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** A command used wrongly (an unknown name, a bad option value): its message alone, exit 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Turns a failure into a clear message and an exit code: 2 for configuration and usage, 1 otherwise. */
export function reportFailure(err: unknown): number {
  if (err instanceof ConfigError || err instanceof UsageError) {
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
