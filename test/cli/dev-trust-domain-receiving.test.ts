import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import t from 'tap';
import { commandEnv } from '../helpers/process-env.js';
import { createTestDatabase } from '../helpers/test-database.js';

/**
 * Issue 32: `mailroom dev trust-domain --receiving` on the domain the team already has (the
 * quick start's own, and the free plan allows only one) switches receiving on, instead of
 * answering exit 0 with receiving still disabled.
 */
const run = promisify(execFile);
const database = createTestDatabase();
t.teardown(() => database.drop());
const env = commandEnv(database, {
  MAILROOM_ENV: 'development',
  MAILROOM_DNS_SERVERS: '127.0.0.1:1',
  MAILROOM_FROM_SOURCE: '1',
});
const mailroom = (args: string[]) => run(process.execPath, ['bin/mailroom.js', ...args], { env });

const team = JSON.parse((await mailroom(['team', 'create', '--name', 'Acme'])).stdout).team.id as string;
const trust = async (...extra: string[]) =>
  JSON.parse((await mailroom(['dev', 'trust-domain', '--team', team, '--name', 'example.test', ...extra])).stdout);

t.test('--receiving on the domain the team has enables receiving', async (t) => {
  const first = await trust();
  t.match(first, { status: 'verified', capabilities: { sending: 'enabled', receiving: 'disabled' } });
  const again = await trust('--receiving');
  t.equal(again.id, first.id, 'the same domain, no second one');
  t.match(again, { status: 'verified', capabilities: { sending: 'enabled', receiving: 'enabled' } });
  const mx = again.records.find((record: { record: string }) => record.record === 'Receiving');
  t.match(mx, { type: 'MX', status: 'verified' }, 'the receiving MX is counted as found too');
  const third = await trust();
  t.match(third.capabilities, { receiving: 'enabled' }, 'a run without --receiving leaves it as it is');
});
