import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import t from 'tap';
import { errorShape, request } from '../helpers/http.js';
import { commandEnv } from '../helpers/process-env.js';
import { mailroomWithStdin as withStdin, spawnMailroom, stopChild } from '../helpers/spawn-mailroom.js';
import { createTestDatabase } from '../helpers/test-database.js';
import { connect } from '../../db/connection.js';

/** `mailroom user create --operator`: an operator of the appliance, in no team, MFA still to turn on. */
const run = promisify(execFile);
const database = createTestDatabase();
t.teardown(() => database.drop());
const env = commandEnv(database, { MAILROOM_ENV: 'test', MAILROOM_PUBLIC_URL: 'https://mail.example.test' });
const childEnv = { ...env, MAILROOM_FROM_SOURCE: '1' };
const mailroom = (args: string[]) => run(process.execPath, ['bin/mailroom.js', ...args], { env: childEnv });

const team = JSON.parse(
  (await mailroom(['team', 'create', '--name', 'Ops', '--owner-email', 'lead@example.com'])).stdout,
).team as { id: string };
const db = connect(database.url);
t.teardown(() => db.knex.destroy());
const { child: api, ready } = spawnMailroom('api', env);
t.teardown(() => stopChild(api));
const url = await ready;

t.test('--operator --password-stdin: signs in with no team, and the admin API asks for MFA first', async (t) => {
  const out = await withStdin(
    env,
    ['user', 'create', '--operator', '--email', 'Olga@Example.com', '--name', 'Olga', '--password-stdin'],
    'operator password\n',
  );
  t.equal(out.code, 0, out.stderr);
  const printed = JSON.parse(out.stdout);
  t.match(printed, {
    user: { object: 'user', email: 'olga@example.com', name: 'Olga', operator: true },
    created: true,
    operator: true,
    mfa_required: true,
  });
  t.notOk(printed.set_password_url, 'no link when a password was given');
  t.notMatch(out.stdout + out.stderr, /operator password/, 'the password is never printed');
  t.equal((await db.knex('team_members').where({ user_id: printed.user.id })).length, 0, 'in no team');

  const login = await request(url, '/auth/login', {
    method: 'POST',
    body: { email: 'olga@example.com', password: 'operator password' },
  });
  t.equal(login.status, 200);
  t.equal(login.body.user.operator, true, 'the session says operator');
  t.equal(login.body.current_team, null, 'no current team');
  t.equal(login.body.operator_mfa_required, true, 'the session says MFA is still needed');
  const cookie = /mailroom_session=([^;]*)/.exec(login.headers.get('set-cookie') ?? '')![0];
  errorShape(t, await request(url, '/admin/teams', { headers: { cookie } }), 403, 'mfa_required');
  errorShape(t, await request(url, '/team', { headers: { cookie } }), 403, 'invalid_permission');
});

t.test('--operator without a password: a one-time set-password link', async (t) => {
  const { stdout } = await mailroom(['user', 'create', '--operator', '--email', 'second@example.com']);
  const printed = JSON.parse(stdout);
  t.equal(printed.operator, true);
  t.match(printed.set_password_url, /^https:\/\/mail\.example\.test\/.*token=/);
  t.equal(printed.set_password_expires_in_seconds, 86400);
  const row = await db.knex('users').where({ email: 'second@example.com' }).first('operator');
  t.equal(Number(row.operator), 1, 'the operator flag is stored');
});

t.test('refusals: --operator with a team, a team member made operator, a team user without --team', async (t) => {
  const withTeam = await withStdin(
    env,
    ['user', 'create', '--operator', '--email', 'x@example.com', '--team', team.id, '--role', 'owner'],
    '',
  );
  t.equal(withTeam.code, 1);
  t.match(withTeam.stderr, /--operator takes no --team or --role/);
  await mailroom(['user', 'create', '--email', 'member@example.com', '--team', team.id, '--role', 'member']);
  const member = await withStdin(env, ['user', 'create', '--operator', '--email', 'member@example.com'], '');
  t.equal(member.code, 1);
  t.match(member.stderr, /member of a team: an operator belongs to no team/);
  const row = await db.knex('users').where({ email: 'member@example.com' }).first('operator');
  t.equal(Number(row.operator), 0, 'the member was not made an operator');
  const noTeam = await withStdin(env, ['user', 'create', '--email', 'y@example.com'], '');
  t.equal(noTeam.code, 1);
  t.match(noTeam.stderr, /say --team ID and --role ROLE/);
});
