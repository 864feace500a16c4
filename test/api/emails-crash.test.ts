import type { ChildProcess } from 'node:child_process';
import t from 'tap';
import { createRuntime } from '../../app/runtime.js';
import { loadConfig } from '../../lib/config/load-config.js';
import { createLogger } from '../../lib/logger.js';
import { TestDnsServer } from '../helpers/dns-server.js';
import { request } from '../helpers/http.js';
import { createTestDatabase } from '../helpers/test-database.js';
import { applianceProcessEnv } from '../helpers/process-env.js';
import { spawnMailroom, stopChild } from '../helpers/spawn-mailroom.js';

/**
 * The API process is killed (SIGKILL) right after it answered 200 for a batch; after a restart
 * every accepted message is there, queued, with its MIME on disk, and none twice.
 */
const dns = await TestDnsServer.start();
const database = createTestDatabase();
const env = applianceProcessEnv(database, dns);
const children: ChildProcess[] = [];
t.teardown(async () => {
  await Promise.all(children.map((child) => stopChild(child, 'SIGKILL')));
  await database.drop();
  await dns.close();
});

async function startApi(): Promise<{ url: string; child: ChildProcess }> {
  const { child, ready } = spawnMailroom('api', env);
  children.push(child);
  return { url: await ready, child };
}

t.test('SIGKILL after 200: every accepted message survives, none twice', async (t) => {
  const first = await startApi();
  const runtime = await createRuntime(loadConfig(env), { logger: createLogger('silent') });
  const team = await runtime.services.teams.create({ name: 'Crash', planCode: 'unlimited' });
  await runtime.services.teams.setTier(team.id, 2);
  const key = await runtime.services.apiKeys.create(team.id, { name: 'k', permission: 'full_access' });
  dns.add({ type: 'SOA', name: 'crash.test' });
  const created = (
    await request(first.url, '/domains', { method: 'POST', token: key.token, body: { name: 'crash.test' } })
  ).body;
  for (const r of created.records as Array<{ type: string; name: string; value: string; record: string }>) {
    if (r.type === 'TXT') dns.add({ type: 'TXT', name: `${r.name}.crash.test`, value: r.value });
    if (r.type === 'MX' && r.record === 'SPF') dns.add({ type: 'MX', name: `${r.name}.crash.test`, exchange: r.value });
  }
  await request(first.url, `/domains/${created.id}/verify`, { method: 'POST', token: key.token });

  const batch = Array.from({ length: 50 }, (_, i) => ({
    from: 'x@crash.test',
    to: `r${i}@example.net`,
    subject: `m${i}`,
    text: 'body',
  }));
  const accepted = await request(first.url, '/emails/batch', {
    method: 'POST',
    token: key.token,
    body: batch,
    headers: { 'idempotency-key': 'crash-batch' },
  });
  t.equal(accepted.status, 200);
  await stopChild(first.child, 'SIGKILL');

  const second = await startApi();
  const ids: string[] = accepted.body.data.map((d: { id: string }) => d.id);
  t.equal(ids.length, 50);
  const rows = await runtime.db.knex('emails').where({ team_id: team.id }).select('id', 'last_event');
  t.equal(rows.length, 50, 'every accepted message recorded, none twice');
  t.same(rows.map((r: { id: string }) => r.id).sort(), [...ids].sort());
  t.ok(
    rows.every((r: { last_event: string }) => r.last_event === 'queued'),
    'all queued for the MTA',
  );
  for (const id of ids) {
    const { email } = await runtime.services.emails.get(team.id, id);
    const mime = await runtime.services.emails.mime(email);
    if (!mime || !mime.includes(Buffer.from(`<${id}@crash.test>`))) t.fail(`MIME of ${id} missing`);
  }
  t.pass('every MIME on disk');
  const replay = await request(second.url, '/emails/batch', {
    method: 'POST',
    token: key.token,
    body: batch,
    headers: { 'idempotency-key': 'crash-batch' },
  });
  t.same(replay.body, accepted.body, 'a client retrying after the crash gets the same ids');
  t.equal(
    Number((await runtime.db.knex('emails').where({ team_id: team.id }).count({ n: '*' }))[0]!.n),
    50,
    'and nothing is sent twice',
  );
  await runtime.close();
  await stopChild(second.child);
});
