import t from 'tap';
import { asBrowser, captureAccountLinks, signup } from '../../helpers/accounts.js';
import { startTestApp } from '../../helpers/test-app.js';
import { markedVerifiedDomain } from '../../helpers/verified-domain.js';
import { newId } from '../../../lib/ids.js';

/**
 * With accounts.mailFrom and accounts.mailTeamId set, verification and reset links go out as
 * ordinary emails of the operator's team (its verified domain), not to the log.
 */
const operatorTeamId = newId();
const app = await startTestApp({
  config: { accounts: { mailFrom: 'Mailroom <accounts@ops.test>', mailTeamId: operatorTeamId } },
});
t.teardown(() => app.close());
const { knex } = app.runtime.db;
// The operator's team, created under the id the configuration names.
const created = await app.runtime.services.teams.create({ name: 'Operator' });
await knex('teams').where({ id: created.id }).update({ id: operatorTeamId });
await markedVerifiedDomain(app, operatorTeamId, 'ops.test');
const logged = captureAccountLinks(app);
t.teardown(logged.restore);

async function mailTo(address: string) {
  const rows = await knex('emails').where({ team_id: operatorTeamId }).orderBy('created_at', 'asc');
  const row = rows.filter((r: { to_addresses: string }) => r.to_addresses.includes(address)).at(-1);
  if (!row) throw new Error(`no email to ${address}`);
  const { email, bodies } = await app.runtime.services.emails.get(operatorTeamId, row.id);
  const token = /token=([A-Za-z0-9_-]+)/.exec(bodies.text ?? '')?.[1];
  return { row, email, bodies, token: token! };
}

t.test('signup sends the verification link from the configured address; the link works', async (t) => {
  await signup(app, 'mia@example.com');
  const { row, bodies, token } = await mailTo('mia@example.com');
  t.equal(row.from_address, 'accounts@ops.test');
  t.equal(row.api_key_id, null, 'sent without an API key');
  t.equal(row.subject, 'Confirm your e-mail address');
  t.match(bodies.text, new RegExp(`${app.url}/dashboard/verify-email\\?token=`));
  t.match(bodies.html, /<a href="http/);
  t.ok(token);
  const verified = await asBrowser(app, '/auth/verify-email', null, { method: 'POST', body: { token } });
  t.equal(verified.status, 200);
  t.same(logged.links, [], 'nothing written to the log');
});

t.test('a password-reset request sends the reset link by mail', async (t) => {
  await asBrowser(app, '/auth/password-reset/request', null, { method: 'POST', body: { email: 'mia@example.com' } });
  await app.runtime.services.accountRecovery.drain(); // the link is mailed after the answer
  const { row, token } = await mailTo('mia@example.com');
  t.equal(row.subject, 'Reset your password');
  const reset = await asBrowser(app, '/auth/password-reset', null, {
    method: 'POST',
    body: { token, password: 'mia new password' },
  });
  t.equal(reset.status, 200);
});

t.test('a send that fails (the domain no longer verified) is logged; signup still succeeds', async (t) => {
  await knex('domains').where({ team_id: operatorTeamId }).update({ status: 'failed' });
  app.runtime.services.lookupCache.invalidate();
  const errors: unknown[] = [];
  const logger = app.runtime.logger as unknown as { error: (...args: unknown[]) => void };
  const original = logger.error;
  logger.error = (entry: unknown) => void errors.push(entry);
  t.teardown(() => void (logger.error = original));
  const { response } = await signup(app, 'noah@example.com');
  t.equal(response.status, 201);
  t.equal(errors.length, 1, 'the failure is logged');
  t.notMatch(JSON.stringify(errors), /token=/, 'the link is not in the error log');
});
