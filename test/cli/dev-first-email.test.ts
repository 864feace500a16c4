import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Resend } from 'resend';
import t from 'tap';
import { spawnMailroom, stopChild } from '../helpers/spawn-mailroom.js';
import { commandEnv } from '../helpers/process-env.js';
import { createTestDatabase } from '../helpers/test-database.js';

/**
 * The README's quick start, through the real command: a team, `mailroom dev trust-domain` (no
 * DNS), `mailroom start`, a send to the mailbox simulator, and the delivered event on the email.
 * The shortcut is refused in production.
 */
const run = promisify(execFile);
const database = createTestDatabase();
t.teardown(() => database.drop());
const env = commandEnv(database, { MAILROOM_ENV: 'development', MAILROOM_DNS_SERVERS: '127.0.0.1:1' });
const mailroom = (args: string[], extraEnv: Record<string, string> = {}) =>
  run(process.execPath, ['bin/mailroom.js', ...args], { env: { ...env, ...extraEnv, MAILROOM_FROM_SOURCE: '1' } });

const created = JSON.parse((await mailroom(['team', 'create', '--name', 'Acme'])).stdout);
const team = created.team.id as string;

t.test('dev trust-domain marks a domain verified without DNS, and says so', async (t) => {
  const { stdout, stderr } = await mailroom(['dev', 'trust-domain', '--team', team, '--name', 'example.test']);
  const domain = JSON.parse(stdout);
  t.match(domain, { object: 'domain', name: 'example.test', status: 'verified' });
  t.ok(
    domain.records.every((record: { status: string }) => record.status === 'verified'),
    'every record counts as found',
  );
  t.match(stderr, /WITHOUT DNS/, 'a warning on stderr');
  const again = JSON.parse((await mailroom(['dev', 'trust-domain', '--team', team, '--name', 'example.test'])).stdout);
  t.equal(again.id, domain.id, 'a second run takes the domain the team has');
});

t.test('refused in production (exit 2), and a bad region is a usage error', async (t) => {
  const refused = await mailroom(['dev', 'trust-domain', '--team', team, '--name', 'other.test'], {
    MAILROOM_ENV: 'production',
    MAILROOM_MASTER_KEY: 'k'.repeat(40),
  }).catch((err: { code: number; stderr: string }) => err);
  t.equal((refused as { code: number }).code, 2);
  t.match((refused as { stderr: string }).stderr, /refused in production/);
  const bad = await mailroom([
    'dev',
    'trust-domain',
    '--team',
    team,
    '--name',
    'other.test',
    '--region',
    'mars-1',
  ]).catch((err: { code: number; stderr: string }) => err);
  t.equal((bad as { code: number }).code, 2);
  t.match((bad as { stderr: string }).stderr, /region/);
});

t.test('a first email: mailroom start, send to the simulator, delivered', async (t) => {
  const { child, ready } = spawnMailroom('start', env);
  t.teardown(() => stopChild(child));
  const url = await ready;
  const resend = new Resend(created.api_key.token, { baseUrl: `${url}/api/v1` } as never);
  const sent = await resend.emails.send({
    from: 'Acme <hello@example.test>',
    to: 'delivered@simulator.mailroom.localhost',
    subject: 'First',
    text: 'It works',
  });
  t.equal(sent.error, null, JSON.stringify(sent.error));
  let lastEvent = '';
  for (let i = 0; i < 100 && lastEvent !== 'delivered'; i++) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    lastEvent = (await resend.emails.get(sent.data!.id)).data?.last_event ?? '';
  }
  t.equal(lastEvent, 'delivered', 'GET /emails/{id} shows it delivered');
});
