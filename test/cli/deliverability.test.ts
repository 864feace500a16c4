import { execFile } from 'node:child_process';
import t from 'tap';
import { cliEnvFor } from '../helpers/spawn-mailroom.js';
import { startTestApp } from '../helpers/test-app.js';

/**
 * `mailroom deliverability actions|lift|providers` and `mailroom ip warmup status|start|stop`,
 * run as processes against the appliance's configuration file and database.
 */
const app = await startTestApp({
  config: {
    mta: {
      regions: { 'us-east-1': { ips: ['192.0.2.10', '192.0.2.11'] } },
      shaping: { settleSeconds: 0 },
      warmup: { schedule: { gmail: [50, 100, 200] } },
    },
  },
});
t.setTimeout(4 * 60_000);
t.teardown(() => app.close());
const { runtime } = app;
const env = cliEnvFor(
  runtime.config,
  process.env.MAILROOM_TEST_REDIS_URL ? { MAILROOM_REDIS_URL: process.env.MAILROOM_TEST_REDIS_URL } : {},
);

type Run = { code: number; stdout: string; stderr: string; json: any };
const mailroom = (...args: string[]): Promise<Run> =>
  new Promise((resolve) => {
    execFile(process.execPath, ['bin/mailroom.js', ...args], { env }, (err, stdout, stderr) => {
      const code = err ? Number((err as { code?: number }).code ?? 1) : 0;
      let json: unknown;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      resolve({ code, stdout, stderr, json });
    });
  });

t.test('deliverability providers: a table, and --json with origins', async (t) => {
  const table = await mailroom('deliverability', 'providers');
  t.equal(table.code, 0, table.stderr);
  t.match(table.stdout, /^PROVIDER\s+CONNECTIONS/m);
  t.match(table.stdout, /^gmail\s+20\s+100\s+-\s+-\s+required\s+built_in/m);
  t.match(table.stdout, /^gmail-rate-limit\s+slow\s+gmail/m);
  const json = await mailroom('deliverability', 'providers', '--json');
  t.match(json.json, { enabled: true, providers: [{ name: 'gmail', origin: 'built_in' }] });
  t.ok(json.json.reactions.length > 3);
});

t.test('deliverability actions and lift', async (t) => {
  const slow = await runtime.services.shaping.actions.react(
    { key: 'gmail', name: 'gmail' },
    '192.0.2.10',
    '421-4.7.28 unusual rate of unsolicited mail',
  );
  const listed = await mailroom('deliverability', 'actions', '--active', '--json');
  t.equal(listed.code, 0, listed.stderr);
  t.match(listed.json.actions, [{ id: slow!.id, kind: 'slow', provider: 'gmail', factor: 0.5, active: true }]);
  const table = await mailroom('deliverability', 'actions');
  t.match(
    table.stdout,
    new RegExp(`^${slow!.id}\\s+slow\\s+gmail\\s+192\\.0\\.2\\.10\\s+0\\.5\\s+gmail-rate-limit`, 'm'),
  );

  const lifted = await mailroom('deliverability', 'lift', slow!.id);
  t.equal(lifted.code, 0, lifted.stderr);
  t.match(lifted.stdout, /Lifted slow of gmail from 192\.0\.2\.10/);
  t.same((await mailroom('deliverability', 'actions', '--active', '--json')).json, { actions: [] });
  t.match((await mailroom('deliverability', 'actions', '--active')).stdout, /No action in force/);
  const again = await mailroom('deliverability', 'lift', slow!.id, '--json');
  t.match(again.json, { id: slow!.id, lifted: false, ended_at: String });

  const unknown = await mailroom('deliverability', 'lift', '0191b3f6-0000-7000-8000-000000000000');
  t.equal(unknown.code, 1);
  t.match(unknown.stderr, /not_found/);
  const bad = await mailroom('deliverability', 'lift', 'nope');
  t.equal(bad.code, 2);
});

t.test('ip warmup start, status, stop', async (t) => {
  t.match((await mailroom('ip', 'warmup', 'status')).stdout, /No address is warming up/);
  const started = await mailroom('ip', 'warmup', 'start', '192.0.2.10', '--day', '2', '--json');
  t.equal(started.code, 0, started.stderr);
  t.match(started.json, { address: '192.0.2.10', day: 2 });
  const status = await mailroom('ip', 'warmup', 'status', '--json');
  t.match(status.json.warmups, [
    { address: '192.0.2.10', day: 2, providers: [{ provider: 'gmail', allowance: 100, sent: 0 }] },
  ]);
  const table = await mailroom('ip', 'warmup', 'status');
  t.match(table.stdout, /^192\.0\.2\.10\s+day 2 of \d+/m);
  t.match(table.stdout, /^\s+gmail\s+0\s+100/m);

  const notPooled = await mailroom('ip', 'warmup', 'start', '198.51.100.1');
  t.equal(notPooled.code, 1);
  t.match(notPooled.stderr, /in no IP pool/);
  t.equal((await mailroom('ip', 'warmup', 'start', '192.0.2.10', '--day', '0')).code, 2);

  const stopped = await mailroom('ip', 'warmup', 'stop', '192.0.2.10');
  t.equal(stopped.code, 0, stopped.stderr);
  t.match(stopped.stdout, /no longer warms up/);
  const again = await mailroom('ip', 'warmup', 'stop', '192.0.2.10');
  t.equal(again.code, 1);
  t.match(again.stderr, /not_found/);
});
