import t from 'tap';
import { BroadcastFanOut, type FanOutDeps } from '../../core/campaigns/broadcasts/broadcast-fanout.js';
import type { UnitsOfWork } from '../../db/unit-of-work.js';
import { request } from '../helpers/http.js';
import { startTestApp } from '../helpers/test-app.js';
import { markedVerifiedDomain } from '../helpers/verified-domain.js';

/**
 * The fan-out keeps two pages in flight (the next one read and rendered while one commits), and
 * its commits stay in page order: when a page fails to commit, the page after it, already
 * rendered, does not commit either, so the cursor never passes an uncommitted page. A fan-out
 * run again then gives every member exactly one email.
 */
const app = await startTestApp();
t.teardown(() => app.close());

t.test('a page that fails to commit stops the page after it; the next run sends each member once', async (t) => {
  const team = await app.createTeam('Pipeline', 'pro');
  await markedVerifiedDomain(app, team.teamId, 'pipeline.test');
  const call = (method: string, path: string, body?: unknown) =>
    request(app.url, path, { method, token: team.token, body });
  await call('PATCH', '/team', {
    sender_name: 'Pipeline',
    postal_address: { line1: '1 Main St', city: 'Springfield', postal_code: '1', country: 'US' },
  });
  for (let i = 0; i < 25; i++) await call('POST', '/contacts', { email: `p${i}@dest.test`, first_name: `P${i}` });
  const segment = (
    await call('POST', '/segments', { name: 'All', filter: { all: [{ field: 'email', op: 'contains', value: '@' }] } })
  ).body.id as string;
  const created = await call('POST', '/broadcasts', {
    segment_id: segment,
    from: 'News <news@pipeline.test>',
    subject: 'Hi {{{FIRST_NAME}}}',
    html: '<p>Hi {{{FIRST_NAME}}}</p>',
    send: true,
  });
  t.equal(created.status, 201, created.text);
  const id = created.body.id as string;

  const real = app.runtime.services.broadcastFanOut as unknown as { deps: FanOutDeps };
  let runs = 0;
  let thirdStarted = false;
  const units = {
    run: async <T>(work: (unit: never) => Promise<T>) => {
      const n = ++runs;
      if (n === 3) thirdStarted = true;
      return real.deps.units.run(async (unit) => {
        const result = await work(unit as never);
        if (n === 2) throw new Error('the second page failed to commit');
        return result;
      });
    },
  } as unknown as UnitsOfWork;
  const failing = new BroadcastFanOut({ ...real.deps, units, pageSize: 10, pagesInFlight: 2 });
  await t.rejects(failing.fanOut(id), /the second page failed to commit/, 'the failure surfaces');
  t.ok(thirdStarted, 'the third page was read and rendered while the second committed');
  const rows = () => app.runtime.db.knex('broadcast_recipients').where({ broadcast_id: id });
  t.equal((await rows()).length, 10, 'only the first page committed: the third waited for the second');

  const again = new BroadcastFanOut({ ...real.deps, pageSize: 10, pagesInFlight: 2 });
  t.equal(await again.fanOut(id), 15, 'the rest on the next run');
  const recipients = await rows();
  t.equal(recipients.length, 25, 'every member has a row');
  t.equal(new Set(recipients.map((r: { contact_id: string }) => r.contact_id)).size, 25, 'each once');
  const emails = await app.runtime.db.knex('emails').where({ broadcast_id: id }).count({ n: '*' });
  t.equal(Number(emails[0]!.n), 25, 'one email per member');
  t.equal((await call('GET', `/broadcasts/${id}`)).body.status, 'sent');
});
