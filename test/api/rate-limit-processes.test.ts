import type { ChildProcess } from 'node:child_process';
import t from 'tap';
import { createRuntime } from '../../app/runtime.js';
import { loadConfig } from '../../lib/config/load-config.js';
import { createLogger } from '../../lib/logger.js';
import { request } from '../helpers/http.js';
import { createTestDatabase, TEST_REDIS_URL } from '../helpers/test-database.js';
import { spawnMailroom, stopChild } from '../helpers/spawn-mailroom.js';

/**
 * Two API processes share one database and one real Redis: the team's limit of 10 per second
 * holds in total, not per process.
 */
const database = createTestDatabase();
const env = {
  ...process.env,
  MAILROOM_ENV: 'test',
  MAILROOM_LOG_LEVEL: 'info',
  MAILROOM_DATA_DIR: database.dataDir,
  MAILROOM_DATABASE_URL: database.url,
  MAILROOM_REDIS_URL: TEST_REDIS_URL,
  MAILROOM_REDIS_KEY_PREFIX: `mailroom-test-mp:${process.pid}:`,
  MAILROOM_API_PORT: '0',
  MAILROOM_RATE_LIMIT_PER_SECOND: '10',
};
const children: ChildProcess[] = [];
t.teardown(async () => {
  await Promise.all(children.map((child) => stopChild(child)));
  await database.drop();
});

function startApiProcess(): Promise<string> {
  const { child, ready } = spawnMailroom('api', env);
  children.push(child);
  return ready;
}

t.test('two API processes on one Redis hold the team limit in total', async (t) => {
  // Sequential starts: the first applies the migrations, the second finds them applied.
  const first = await startApiProcess();
  const second = await startApiProcess();
  const runtime = await createRuntime(loadConfig(env), { logger: createLogger('silent') });
  const team = await runtime.services.teams.create({ name: 'Shared limit' });
  const key = await runtime.services.apiKeys.create(team.id, { name: 'k', permission: 'full_access' });
  await runtime.close();

  const started = performance.now();
  const responses = await Promise.all(
    Array.from({ length: 40 }, (_, i) => request(i % 2 ? first : second, '/team', { token: key.token })),
  );
  const seconds = (performance.now() - started) / 1000;
  const passedBy = (n: number) => responses.filter((r, i) => i % 2 === n && r.status === 200).length;
  const passed = passedBy(0) + passedBy(1);
  const limited = responses.filter((r) => r.status === 429).length;
  t.equal(passed + limited, 40, 'every answer is 200 or 429');
  t.ok(passed >= 10, `the bucket's 10 pass (${passed})`);
  t.ok(
    passed <= 10 + Math.ceil(seconds * 10) + 1,
    `in total no more than the bucket and its refill over ${seconds.toFixed(2)} s: ${passed} passed (${passedBy(1)} + ${passedBy(0)})`,
  );
  t.ok(
    responses.some((r, i) => i % 2 === 0 && r.status === 429) ||
      responses.some((r, i) => i % 2 === 1 && r.status === 429),
    'refusals come from the shared bucket',
  );
});
