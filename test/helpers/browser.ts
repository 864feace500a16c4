import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';

/** Debian's chromium (apt install chromium), driven by playwright-core. */
export const CHROMIUM = process.env.MAILROOM_CHROMIUM ?? '/usr/bin/chromium';

/**
 * Why a browser test does not run here, or null when it does. Browser tests run in the SQLite
 * pass only (what they check does not depend on the database); under CI chromium must be there,
 * so a missing one fails the test instead of skipping it.
 */
export function browserSkipReason(): string | null {
  if (process.env.MAILROOM_TEST_DATABASE_URL)
    return 'the browser test runs in the SQLite pass only (MAILROOM_TEST_DATABASE_URL is set)';
  if (!existsSync(CHROMIUM) && !process.env.CI)
    return `chromium is not installed at ${CHROMIUM} (apt install chromium)`;
  return null;
}

/**
 * Headless chromium with a fresh profile (playwright-core makes a new temporary one per launch);
 * --no-sandbox because CI runs as root; no background traffic (there is no network here).
 */
export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update'],
  });
}
