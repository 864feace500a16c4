import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import t from 'tap';
import { errorShape, request } from '../helpers/http.js';
import { commandEnv } from '../helpers/process-env.js';
import { mailroomWithStdin as withStdin, spawnMailroom, stopChild } from '../helpers/spawn-mailroom.js';
import { createTestDatabase } from '../helpers/test-database.js';
import { connect } from '../../db/connection.js';

const run = promisify(execFile);
const database = createTestDatabase();
t.teardown(() => database.drop());
const env = commandEnv(database, { MAILROOM_ENV: 'test', MAILROOM_PUBLIC_URL: 'https://mail.example.test' });
const mailroom = (args: string[]) =>
  run(process.execPath, ['bin/mailroom.js', ...args], { env: { ...env, MAILROOM_FROM_SOURCE: '1' } });

const team = JSON.parse(
  (await mailroom(['team', 'create', '--name', 'Ops', '--owner-email', 'Lead@Example.com'])).stdout,
).team as { id: string };
const db = connect(database.url);
t.teardown(() => db.knex.destroy());
const { child: api, ready } = spawnMailroom('api', env);
t.teardown(() => stopChild(api));
const url = await ready;
const login = (email: string, password: string) =>
  request(url, '/auth/login', { method: 'POST', body: { email, password } });

t.test('--password-stdin: the user can log in at once, in the team, with the role', async (t) => {
  const out = await withStdin(
    env,
    [
      'user',
      'create',
      '--email',
      'lead@example.com',
      '--team',
      team.id,
      '--role',
      'owner',
      '--name',
      'Lead',
      '--password-stdin',
    ],
    'lead password\n',
  );
  t.equal(out.code, 0, out.stderr);
  const printed = JSON.parse(out.stdout);
  t.match(printed, { user: { object: 'user', email: 'lead@example.com', name: 'Lead' }, created: true, role: 'owner' });
  t.notOk(printed.set_password_url, 'no link when a password was given');
  t.notMatch(out.stdout + out.stderr, /lead password/, 'the password is never printed');
  const session = await login('lead@example.com', 'lead password');
  t.equal(session.status, 200);
  t.match(session.body.current_team, { id: team.id, name: 'Ops' });
  const rows = await db.knex('team_members').where({ team_id: team.id });
  t.equal(rows.length, 1, 'the owner row from `team create` was linked, not duplicated');
  t.equal(rows[0].user_id, printed.user.id);
});

t.test('without a password: a one-time set-password link valid 24 hours', async (t) => {
  const { stdout } = await mailroom([
    'user',
    'create',
    '--email',
    'new@example.com',
    '--team',
    team.id,
    '--role',
    'member',
  ]);
  const printed = JSON.parse(stdout);
  t.match(printed.set_password_url, /^https:\/\/mail\.example\.test\/dashboard\/reset-password\?token=[A-Za-z0-9_-]+$/);
  t.equal(printed.set_password_expires_in_seconds, 86400);
  errorShape(t, await login('new@example.com', 'anything'), 401, 'invalid_api_key');
  const token = new URL(printed.set_password_url).searchParams.get('token');
  const set = await request(url, '/auth/password-reset', { method: 'POST', body: { token, password: 'new password' } });
  t.equal(set.status, 200);
  t.equal((await login('new@example.com', 'new password')).status, 200);
  const member = await db.knex('team_members').where({ team_id: team.id, email: 'new@example.com' }).first();
  t.equal(member.role, 'member');
});

t.test('refusals: unknown team, bad role, short password', async (t) => {
  const bad = (args: string[], input = '') => withStdin(env, ['user', 'create', ...args], input);
  const unknownTeam = await bad([
    '--email',
    'x@example.com',
    '--team',
    '0190a0a0-0000-7000-8000-000000000000',
    '--role',
    'member',
  ]);
  t.equal(unknownTeam.code, 1);
  t.match(unknownTeam.stderr, /No such team/);
  const role = await bad(['--email', 'x@example.com', '--team', team.id, '--role', 'boss']);
  t.match(role.stderr, /--role must be owner, admin or member/);
  const short = await bad(
    ['--email', 'x@example.com', '--team', team.id, '--role', 'member', '--password-stdin'],
    '123\n',
  );
  t.match(short.stderr, /6 to 4096/);
});
