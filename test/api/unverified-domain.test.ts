import { Resend } from 'resend';
import t from 'tap';
import { errorShape, request } from '../helpers/http.js';
import { startTestApp } from '../helpers/test-app.js';
import { markedVerifiedDomain } from '../helpers/verified-domain.js';

/**
 * Issue 32: sending from a domain the team has added but not verified is the spec's
 * 403 validation_error, and its message names the domain's status and the verify call.
 */
const app = await startTestApp();
t.teardown(() => app.close());

const send = (token: string, from: string) =>
  request(app.url, '/emails', {
    method: 'POST',
    token,
    body: { from, to: 'someone@example.com', subject: 'Hi', text: 'Hi' },
  });

t.test('a domain of the team that is not verified: its status and POST /domains/{id}/verify', async (t) => {
  const team = await app.createTeam();
  const created = await request(app.url, '/domains', {
    method: 'POST',
    token: team.token,
    body: { name: 'pending.example.com' },
  });
  t.equal(created.status, 201, created.text);
  const { id, status } = created.body as { id: string; status: string };
  t.not(status, 'verified');
  const body = errorShape(t, await send(team.token, 'Me <me@pending.example.com>'), 403, 'validation_error');
  t.equal(
    body.message,
    `The domain pending.example.com is not verified (status: ${status}); add its DNS records (GET /domains/${id} lists them), then POST /domains/${id}/verify`,
  );
  t.same(Object.keys(body).sort(), ['message', 'name', 'statusCode']);

  await app.runtime.db.knex('domains').where({ id }).update({ status: 'failed' });
  const failed = errorShape(t, await send(team.token, 'me@PENDING.example.com'), 403, 'validation_error');
  t.match(failed.message, `(status: failed)`, 'the status as stored now');
  t.match(failed.message, `POST /domains/${id}/verify`);

  const sdk = await new Resend(team.token, { baseUrl: `${app.url}/api/v1` } as never).emails.send({
    from: 'me@pending.example.com',
    to: 'someone@example.com',
    subject: 'Hi',
    text: 'Hi',
  });
  t.match(sdk.error, { name: 'validation_error', statusCode: 403, message: /POST \/domains\/[0-9a-f-]+\/verify/ });
});

t.test(
  'a domain the team does not have (or another team’s): how to add it, nothing about the other team',
  async (t) => {
    const owner = await app.createTeam('Owner');
    const domain = await markedVerifiedDomain(app, owner.teamId, 'owned.example.com');
    const team = await app.createTeam();
    for (const from of ['me@nowhere.example.com', 'me@owned.example.com']) {
      const body = errorShape(t, await send(team.token, from), 403, 'validation_error');
      t.equal(
        body.message,
        `The domain ${from.split('@')[1]} is not a domain of this team: add it with POST /domains, publish its DNS records, then POST /domains/<id>/verify`,
      );
      t.notMatch(body.message, domain.id);
    }
  },
);
