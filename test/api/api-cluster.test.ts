import cluster from 'node:cluster';
import { request as httpRequest } from 'node:http';
import t from 'tap';
import { startApiServer } from '../../api/server.js';
import { createRuntime } from '../../app/runtime.js';
import { loadConfig } from '../../lib/config/load-config.js';
import { createLogger } from '../../lib/logger.js';
import { ConfigError } from '../../lib/errors.js';
import { createTestDatabase, TEST_DB_KIND, TEST_REDIS_URL } from '../helpers/test-database.js';
import { UA } from '../helpers/test-app.js';

/** A runtime as the command line builds it, with api.workers = 2 and the given extras. */
async function clusterRuntime(env: Record<string, string>) {
  const database = createTestDatabase();
  const config = loadConfig({
    MAILROOM_CONFIG: '',
    MAILROOM_ENV: 'test',
    MAILROOM_LOG_LEVEL: process.env.MAILROOM_TEST_LOG_LEVEL ?? 'silent',
    MAILROOM_DATA_DIR: database.dataDir,
    MAILROOM_DATABASE_URL: database.url,
    MAILROOM_API_PORT: '0',
    MAILROOM_API_WORKERS: '2',
    MAILROOM_RATE_LIMIT_PER_SECOND: '100000',
    MAILROOM_DNS_SERVERS: '127.0.0.1:1',
    MAILROOM_REDIS_KEY_PREFIX: `mailroom-test:${process.pid}:cluster:`,
    ...env,
  });
  const runtime = await createRuntime(config, { logger: createLogger(config.logLevel) });
  return { runtime, close: async () => (await runtime.close(), await database.drop()) };
}

/** A request on a new connection each time, so the primary hands them to the workers in turn. */
function fresh(url: string, path: string, token: string, method = 'GET'): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url + path,
      { method, agent: false, headers: { authorization: `Bearer ${token}`, 'user-agent': UA } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end();
  });
}
const statuses = async (url: string, token: string, n = 8) => {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(await fresh(url, '/team', token));
  return out;
};

t.test('several workers need Redis and MySQL: refused at start otherwise', async (t) => {
  const { runtime, close } = await clusterRuntime({});
  t.teardown(close);
  await t.rejects(
    startApiServer(runtime),
    ConfigError,
    TEST_DB_KIND === 'sqlite' ? 'no Redis (and SQLite)' : 'no Redis',
  );
  t.equal(Object.keys(cluster.workers ?? {}).length, 0, 'no worker was left running');
});

t.test(
  'two API workers share the port; a change made anywhere reaches every worker at once',
  { skip: TEST_DB_KIND !== 'mysql' && 'needs MySQL (run with npm run test:mysql)' },
  async (t) => {
    // A TTL far longer than the test: a worker refusing a changed key heard about the change.
    const { runtime, close } = await clusterRuntime({
      MAILROOM_REDIS_URL: TEST_REDIS_URL,
      MAILROOM_API_LOOKUP_CACHE_MS: '60000',
    });
    t.teardown(close);
    const api = await startApiServer(runtime);
    t.teardown(() => api.close());
    t.equal(api.server, null, 'the primary serves nothing itself');
    t.equal(Object.keys(cluster.workers ?? {}).length, 2);

    const team = await runtime.services.teams.create({ name: 'Cluster' });
    const key = await runtime.services.apiKeys.create(team.id, { name: 'k', permission: 'full_access' });
    t.same(await statuses(api.url, key.token), Array(8).fill(200), 'both workers answer (and now hold the key)');

    // Revoked through the API: one worker makes the change, the other hears it from the primary.
    t.equal(await fresh(api.url, `/api-keys/${key.id}`, key.token, 'DELETE'), 200);
    t.same(await statuses(api.url, key.token), Array(8).fill(403), 'every worker refuses it from the next request on');

    // Changed in the primary (as the scheduler in `mailroom start` would): the workers hear it too.
    const other = await runtime.services.apiKeys.create(team.id, { name: 'k2', permission: 'full_access' });
    t.same(await statuses(api.url, other.token), Array(8).fill(200));
    await runtime.services.teams.setRiskState(team.id, 'suspended');
    t.same(await statuses(api.url, other.token), Array(8).fill(403));
    await runtime.services.teams.setRiskState(team.id, 'normal');

    // A worker that dies is replaced.
    const [victim] = Object.values(cluster.workers ?? {});
    victim!.process.kill('SIGKILL');
    const deadline = Date.now() + 20_000;
    while (
      Date.now() < deadline &&
      !(
        Object.values(cluster.workers ?? {}).length === 2 &&
        Object.values(cluster.workers ?? {}).every((w) => w !== victim)
      )
    ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    t.equal(Object.values(cluster.workers ?? {}).filter((w) => w !== victim).length, 2, 'a new worker took its place');
    // The replacement may still be starting; the port stays served by the other meanwhile.
    t.same(await statuses(api.url, other.token, 4), Array(4).fill(200));

    await api.close();
    t.equal(Object.keys(cluster.workers ?? {}).length, 0, 'close stops every worker');
  },
);
