import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Test } from 'tap';
import { launchChromium } from './browser.js';
import { sessionInTeam } from './accounts.js';
import { request } from './http.js';
import { startTestApp, type TestApp } from './test-app.js';

/**
 * The dashboard in headless Chromium against a real appliance (startTestApp): sign a person in
 * by cookie (the fast way, for page tests) or through the pages (the journeys), take screenshots
 * kept as artefacts, and run axe-core on a page.
 */

/** Screenshots of every dashboard test, kept after the run (CI keeps the folder as an artefact). */
export const SCREENSHOT_DIR = process.env.MAILROOM_SCREENSHOT_DIR ?? join(process.cwd(), 'artifacts', 'dashboard');

export type Dashboard = { browser: Browser; context: BrowserContext; page: Page; close: () => Promise<void> };

/** A browser with one page on the appliance's origin; every console error and failed page is recorded. */
export async function openDashboard(app: TestApp): Promise<Dashboard & { errors: string[] }> {
  const browser = await launchChromium();
  const context = await browser.newContext({ baseURL: app.url, viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(`pageerror: ${err.message}`));
  page.on('console', (message) => {
    // A refused API call (401 before signing in, a 422 the page shows) is logged by the browser as
    // "Failed to load resource": an answer the page handles, not a script error.
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource'))
      errors.push(`console: ${message.text()}`);
  });
  return { browser, context, page, errors, close: () => browser.close() };
}

/** A person of `role` in `teamId`, signed in: their session cookie put in the browser. */
export async function signInByCookie(
  app: TestApp,
  context: BrowserContext,
  teamId: string,
  options: { email?: string; role?: 'owner' | 'admin' | 'member' } = {},
): Promise<string> {
  const email = options.email ?? `person-${Math.random().toString(36).slice(2, 8)}@example.test`;
  const cookie = await sessionInTeam(app, email, teamId, options.role ?? 'owner');
  const value = cookie.split('=')[1]!;
  await context.addCookies([{ name: 'mailroom_session', value, url: app.url, httpOnly: true, sameSite: 'Lax' }]);
  return email;
}

/** Saves a full-page screenshot as artifacts/dashboard/<name>.png and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/**
 * axe-core on the page as it is: no serious or critical violation (each is named in the failure).
 * An email's sandboxed frame is left out: axe injects itself into every frame and waits for its
 * run there, which never comes in a frame whose scripts the sandbox disables; the frame holds the
 * sender's HTML, not the dashboard's (the frame element itself, with its title, is checked).
 */
export async function assertAccessible(t: Test, page: Page, label: string): Promise<void> {
  const { AxeBuilder } = await import('@axe-core/playwright');
  const results = await new AxeBuilder({ page }).exclude('iframe[sandbox]').analyze();
  const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  t.same(
    bad.map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help} — ${v.nodes
          .map((n) => n.target.join(' '))
          .slice(0, 3)
          .join(', ')}`,
    ),
    [],
    `${label}: no serious or critical accessibility violation`,
  );
}

/**
 * A page test's usual start: an appliance, a browser, a team whose owner is signed in by cookie,
 * and `api` calling the appliance with the team's key; all closed when `t` ends.
 */
export async function dashboardForTeam(t: Test, teamName: string) {
  const app = await startTestApp();
  const d = await openDashboard(app);
  t.teardown(async () => {
    await d.close();
    await app.close();
  });
  const team = await app.createTeam(teamName);
  await signInByCookie(app, d.context, team.teamId);
  const api = (method: string, path: string, body?: unknown) =>
    request(app.url, path, { method, token: team.token, body });
  return { app, d, page: d.page, team, api };
}
