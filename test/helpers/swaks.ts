import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

/**
 * The `skip` option of a test that runs swaks: never skipped under CI (which installs it, and a
 * missing swaks must fail there), skipped with the reason on a machine without it.
 */
export async function skipWithoutSwaks(): Promise<false | string> {
  if (process.env.CI) return false;
  const installed = await promisify(execFile)('which', ['swaks']).then(
    () => true,
    () => false,
  );
  return installed ? false : 'swaks is not installed (CI installs it)';
}
