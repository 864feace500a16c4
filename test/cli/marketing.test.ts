import { execFile } from 'node:child_process';
import t from 'tap';
import { startTestApp } from '../helpers/test-app.js';

/** `mailroom marketing pause|resume|status` flips the switch the running appliance reads. */
const app = await startTestApp();
t.teardown(() => app.close());
const env = {
  ...process.env,
  MAILROOM_ENV: 'test',
  MAILROOM_LOG_LEVEL: 'warn',
  MAILROOM_FROM_SOURCE: '1',
  MAILROOM_CONFIG: '',
  MAILROOM_DATA_DIR: app.runtime.config.dataDir,
  MAILROOM_DATABASE_URL: app.runtime.config.database.url,
};
const mailroom = (...args: string[]): Promise<{ code: number; json: any; stderr: string }> =>
  new Promise((resolve) => {
    execFile(process.execPath, ['bin/mailroom.js', ...args], { env }, (err, stdout, stderr) => {
      let json: unknown;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, json, stderr });
    });
  });

/** The appliance sees another process's flip within its short cache (2 s). */
async function seen(wanted: boolean): Promise<boolean> {
  for (let i = 0; i < 40; i++) {
    if ((await app.runtime.services.marketingEnabled()) === wanted) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

t.test('pause, status, resume', async (t) => {
  const initial = await mailroom('marketing', 'status');
  t.equal(initial.code, 0, initial.stderr);
  t.same(initial.json, { marketing: 'enabled', source: 'configuration (marketing.enabled)' });
  const paused = await mailroom('marketing', 'pause');
  t.equal(paused.code, 0, paused.stderr);
  t.same(paused.json, { marketing: 'paused', source: 'mailroom marketing pause|resume' });
  t.ok(await seen(false), 'the running appliance sees the pause');
  const resumed = await mailroom('marketing', 'resume');
  t.same(resumed.json, { marketing: 'enabled', source: 'mailroom marketing pause|resume' });
  t.ok(await seen(true), 'and the resume');
});
