import t from 'tap';
import { createLogger } from '../../../lib/logger.js';
import { MessageSubmitter } from '../../../submission/message-submitter.js';
import { startTestApp } from '../../helpers/test-app.js';
import { approve, discover, exchange, registerClient } from './oauth-fixture.js';

/**
 * SMTP submission authenticates with the same service as the API, so an OAuth access token works
 * there too: only with emails:send, the scope POST /emails needs. Keys are unchanged.
 */
const app = await startTestApp();
t.teardown(() => app.close());
const team = await app.createTeam('Submitter');
const as = await discover(app);
const client = await registerClient(as);
const submitter = new MessageSubmitter({
  services: app.runtime.services,
  clock: app.runtime.clock,
  logger: createLogger('silent'),
});

t.test('a token without emails:send is refused at AUTH; with it, accepted', async (t) => {
  const reader = await exchange(as, client, await approve(app, as, client, team.teamId, ['team:read']));
  await t.rejects(submitter.authenticate(reader.access_token), {
    errorName: 'invalid_permission',
    statusCode: 403,
  } as never);
  const sender = await exchange(as, client, await approve(app, as, client, team.teamId, ['emails:send']));
  t.equal((await submitter.authenticate(sender.access_token)).team.id, team.teamId);
  t.equal((await submitter.authenticate(team.token)).scopes, null, 'a key as before');
});
