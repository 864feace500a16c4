import t from 'tap';
import { request } from '../../helpers/http.js';
import { startTestApp } from '../../helpers/test-app.js';

/**
 * Issue 32: `mailroom team create --owner-email` then `mailroom user create --name` showed the
 * owner as `name: null` in GET /team/members: the member row the first command left was linked
 * to the new user without the name. Through the services both commands call, read back by API.
 */
const app = await startTestApp();
t.teardown(() => app.close());
const { services } = app.runtime;

/** What `mailroom team create --name <name> --owner-email <email>` does, and a key to read with. */
async function teamWithOwnerRow(name: string, ownerEmail: string) {
  const team = await services.teams.create({ name, ownerEmail });
  const key = await services.apiKeys.create(team.id, { name: 'k', permission: 'full_access' });
  const members = async () =>
    (await request(app.url, '/team/members', { token: key.token })).body.data as Array<Record<string, unknown>>;
  return { team, members };
}

t.test('the owner row of `team create --owner-email` takes the name `user create --name` gives', async (t) => {
  const { team, members } = await teamWithOwnerRow('Ops', 'Ada@Example.com');
  t.match(await members(), [{ email: 'ada@example.com', name: null, role: 'owner' }]);
  const result = await services.accounts.createByOperator({
    email: 'ada@example.com',
    teamId: team.id,
    role: 'owner',
    name: 'Ada Lovelace',
  });
  t.equal(result.user.name, 'Ada Lovelace');
  const list = await members();
  t.equal(list.length, 1, 'linked, not duplicated');
  t.match(list[0], { email: 'ada@example.com', name: 'Ada Lovelace', role: 'owner' });
});

t.test('a new member of a team: the name is on the row', async (t) => {
  const { team, members } = await teamWithOwnerRow('Two', 'owner@example.com');
  await services.accounts.createByOperator({ email: 'bob@example.com', teamId: team.id, role: 'member', name: 'Bob' });
  t.match(
    (await members()).find((m) => m.email === 'bob@example.com'),
    { name: 'Bob', role: 'member' },
  );
});

t.test('an existing user without a name gets it; one with a name keeps it', async (t) => {
  const first = await teamWithOwnerRow('Three', 'owner3@example.com');
  await services.accounts.createByOperator({ email: 'cy@example.com', teamId: first.team.id, role: 'member' });
  t.match(
    (await first.members()).find((m) => m.email === 'cy@example.com'),
    { name: null },
  );
  const second = await teamWithOwnerRow('Four', 'owner4@example.com');
  const again = await services.accounts.createByOperator({
    email: 'cy@example.com',
    teamId: second.team.id,
    role: 'admin',
    name: 'Cy',
  });
  t.equal(again.created, false);
  t.equal(again.user.name, 'Cy', 'the user had none: it takes this one');
  t.match(
    (await second.members()).find((m) => m.email === 'cy@example.com'),
    { name: 'Cy', role: 'admin' },
  );
  const third = await teamWithOwnerRow('Five', 'owner5@example.com');
  const renamed = await services.accounts.createByOperator({
    email: 'cy@example.com',
    teamId: third.team.id,
    role: 'member',
    name: 'Someone Else',
  });
  t.equal(renamed.user.name, 'Cy', 'a user’s own name is not replaced');
  t.match(
    (await third.members()).find((m) => m.email === 'cy@example.com'),
    { name: 'Cy' },
  );
});
