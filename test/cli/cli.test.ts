import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Resend } from 'resend';
import t from 'tap';
import { connect } from '../../db/connection.js';
import { commandEnv } from '../helpers/process-env.js';
import { createTestDatabase } from '../helpers/test-database.js';
import { spawnMailroom, stopChild } from '../helpers/spawn-mailroom.js';

const run = promisify(execFile);
const database = createTestDatabase();
t.teardown(() => database.drop());
const env = commandEnv(database, { MAILROOM_ENV: 'test' });
const mailroom = (args: string[], extraEnv: Record<string, string> = {}) =>
  run(process.execPath, ['bin/mailroom.js', ...args], { env: { ...env, ...extraEnv, MAILROOM_FROM_SOURCE: '1' } });

t.test('migrate applies, then has nothing to do', async (t) => {
  const first = JSON.parse((await mailroom(['migrate'])).stdout);
  t.ok(first.applied.length >= 1);
  const second = JSON.parse((await mailroom(['migrate'])).stdout);
  t.same(second.applied, []);
});

t.test('config print shows the resolved configuration with secrets masked', async (t) => {
  const { stdout } = await mailroom(['config', 'print'], {
    MAILROOM_MASTER_KEY: 'm'.repeat(40),
    MAILROOM_REDIS_URL: 'redis://:pw-secret@127.0.0.1:6379',
  });
  const printed = JSON.parse(stdout);
  t.equal(printed.masterKey, '********');
  t.notMatch(stdout, /pw-secret|mmmm/);
  t.equal(printed.database.url, database.url);
});

t.test('a bad configuration stops with a message naming the key', async (t) => {
  const failure = await mailroom(['config', 'print'], { MAILROOM_API_PORT: 'abc' }).catch(
    (err: { code: number; stderr: string }) => err,
  );
  t.equal((failure as { code: number }).code, 2);
  t.match((failure as { stderr: string }).stderr, /api\.port \(from MAILROOM_API_PORT\)/);
  const prod = await mailroom(['api'], { MAILROOM_ENV: 'production' }).catch(
    (err: { code: number; stderr: string }) => err,
  );
  t.equal((prod as { code: number }).code, 2, 'production refuses to start without a master key');
  t.match((prod as { stderr: string }).stderr, /masterKey/);
});

t.test('team create prints a key that works with curl and with the resend SDK against `mailroom start`', async (t) => {
  const created = JSON.parse(
    (await mailroom(['team', 'create', '--name', 'First team', '--owner-email', 'ops@example.com'])).stdout,
  );
  t.match(created, { team: { object: 'team', name: 'First team' }, api_key: { id: String, token: /^svc_/ } });

  const { child: server, ready: listening } = spawnMailroom('start', env);
  t.teardown(() => stopChild(server));
  const url = await listening;

  const ready = JSON.parse((await run('curl', ['-s', `${url}/ready`])).stdout);
  t.match(ready, {
    status: 'ok',
    checks: [
      { name: 'database', ok: true },
      { name: 'kv_memory', ok: true },
      { name: 'spool', ok: true },
    ],
    failed: [],
  });

  const curl = await run('curl', ['-s', '-H', `Authorization: Bearer ${created.api_key.token}`, `${url}/api/v1/team`]);
  t.equal(JSON.parse(curl.stdout).id, created.team.id, 'curl reaches the team');

  const resend = new Resend(created.api_key.token, { baseUrl: `${url}/api/v1` } as never);
  const key = await resend.apiKeys.create({ name: 'made by the SDK', permission: 'sending_access' });
  t.equal(key.error, null);
  const list = await resend.apiKeys.list();
  t.same(list.data?.data.map((k) => k.name).sort(), ['Initial key', 'made by the SDK']);
  t.same((await resend.apiKeys.remove(key.data!.id)).data, { object: 'api_key', id: key.data!.id, deleted: true });

  const sending = JSON.parse(
    (await mailroom(['key', 'create', '--team', created.team.id, '--permission', 'sending_access'])).stdout,
  );
  const restricted = await run('curl', ['-s', '-H', `Authorization: Bearer ${sending.api_key.token}`, `${url}/team`]);
  t.equal(JSON.parse(restricted.stdout).name, 'restricted_api_key');
  // The operator's commands are in the team's audit log, named by the shell account.
  const audit = await run('curl', ['-s', '-H', `Authorization: Bearer ${created.api_key.token}`, `${url}/audit-logs`]);
  const entries = JSON.parse(audit.stdout).data as Array<{ action: string; actor: { type: string; name: string } }>;
  t.same(
    entries.map((e) => [e.action, e.actor.type]),
    [
      ['api_key.created', 'operator'],
      ['api_key.revoked', 'api_key'],
      ['api_key.created', 'api_key'],
      ['team.created', 'operator'],
    ],
    'the CLI commands as the operator, the SDK calls as the key',
  );
  t.match(entries[0]!.actor.name, /^mailroom CLI \(.+\)$/);

  await mailroom(['team', 'set-risk', '--team', created.team.id, '--state', 'suspended']);
  // Another process changed the team: the server may keep its cached row for api.lookupCacheMs (1 s).
  const changedAt = Date.now();
  let suspended = await run('curl', ['-s', '-H', `Authorization: Bearer ${created.api_key.token}`, `${url}/team`]);
  while (JSON.parse(suspended.stdout).name !== 'suspended_api_key' && Date.now() - changedAt < 1500) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    suspended = await run('curl', ['-s', '-H', `Authorization: Bearer ${created.api_key.token}`, `${url}/team`]);
  }
  t.equal(JSON.parse(suspended.stdout).name, 'suspended_api_key', 'refused within api.lookupCacheMs');
});

t.test("the operator's commands write their change and its audit entry in one transaction", async (t) => {
  const created = JSON.parse(
    (await mailroom(['team', 'create', '--name', 'Audited by shell', '--plan', 'pro'])).stdout,
  );
  const teamId = created.team.id as string;
  const keyId = created.api_key.id as string;
  await mailroom(['team', 'set-tier', '--team', teamId, '--tier', '2']);
  await mailroom(['team', 'set-plan', '--team', teamId, '--plan', 'scale']);
  await mailroom(['key', 'suspend', '--team', teamId, '--key', keyId]);
  await mailroom(['key', 'unsuspend', '--team', teamId, '--key', keyId]);
  await mailroom(['team', 'set-risk', '--team', teamId, '--state', 'suspended']);
  await mailroom(['team', 'set-risk', '--team', teamId, '--state', 'normal']);
  // A refused command changes nothing and records nothing.
  const refused = await mailroom(['team', 'set-plan', '--team', teamId, '--plan', 'gold']).catch((err: Error) => err);
  t.ok(refused instanceof Error, 'an unknown plan is refused');

  const db = connect(database.url);
  t.teardown(() => db.knex.destroy());
  const rows = (await db
    .knex('audit_log_entries')
    .where({ team_id: teamId })
    .orderBy('created_at')
    .orderBy('id')) as Array<{
    action: string;
    actor_type: string;
    metadata: string | Record<string, unknown>;
  }>;
  t.same(
    rows.map((row) => [
      row.action,
      row.actor_type,
      typeof row.metadata === 'string' ? JSON.parse(row.metadata) : row.metadata,
    ]),
    [
      ['team.created', 'operator', { name: 'Audited by shell', plan: 'pro' }],
      ['team.operator_updated', 'operator', { tier: 2 }],
      ['team.operator_updated', 'operator', { plan: 'scale' }],
      ['api_key.suspended', 'operator', {}],
      ['api_key.unsuspended', 'operator', {}],
      ['team.suspended', 'operator', {}],
      ['team.resumed', 'operator', {}],
    ],
    'one entry per command, in order',
  );
  const team = await db.knex('teams').where({ id: teamId }).first();
  t.match(team, { plan_code: 'scale', sending_tier: 2, risk_state: 'normal' }, 'the changes themselves');
});

t.test('job run executes a scheduled job now', async (t) => {
  const { stdout } = await mailroom(['job', 'run', 'purge-request-logs']);
  t.match(JSON.parse(stdout), { job: 'purge-request-logs', result: { deleted: Number } });
});
