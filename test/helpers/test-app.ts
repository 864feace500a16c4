import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startApiServer, type ApiServer } from '../../api/server.js';
import type { RouteDef } from '../../api/route.js';
import { createRuntime, type Runtime } from '../../app/runtime.js';
import type { Clock } from '../../lib/clock.js';
import { loadConfig } from '../../lib/config/load-config.js';
import { createLogger } from '../../lib/logger.js';
import { APP_USES_REDIS, createTestDatabase, TEST_REDIS_URL } from './test-database.js';

export const UA = 'mailroom-tests/1.0';

export type TestApp = {
  url: string;
  runtime: Runtime;
  api: ApiServer;
  /** A new team with a full_access key. */
  createTeam(name?: string, planCode?: string): Promise<{ teamId: string; token: string; keyId: string }>;
  close(): Promise<void>;
};

export type TestAppOptions = {
  extraRoutes?: RouteDef[];
  rateLimitPerSecond?: number;
  env?: Record<string, string>;
  config?: Record<string, unknown>;
  /** The runtime's "now" (default: the system clock), for tests that move time instead of waiting. */
  clock?: Clock;
};

/**
 * A real appliance for one test file: its own database (SQLite or MariaDB), Redis or the
 * in-process store as the CI pass says, a real HTTP server on a free loopback port.
 * The rate limit is raised unless a test asks for the real one, so other tests never see 429s.
 */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const database = createTestDatabase();
  const env: Record<string, string> = {
    // No config file unless a test gives one: a developer's ./mailroom.json must not leak in.
    MAILROOM_CONFIG: '',
    MAILROOM_ENV: 'test',
    MAILROOM_LOG_LEVEL: process.env.MAILROOM_TEST_LOG_LEVEL ?? 'silent',
    MAILROOM_DATA_DIR: database.dataDir,
    MAILROOM_DATABASE_URL: database.url,
    MAILROOM_API_PORT: '0',
    MAILROOM_SUBMISSION_PORT: '0',
    MAILROOM_INBOUND_PORT: '0',
    MAILROOM_METRICS_PORT: '0',
    MAILROOM_RATE_LIMIT_PER_SECOND: String(options.rateLimitPerSecond ?? 100000),
    // No network here: unless a test runs its own DNS server, look-ups go to a closed loopback
    // port and fail at once as temporary, instead of waiting on the system resolver.
    MAILROOM_DNS_SERVERS: '127.0.0.1:1',
    MAILROOM_REDIS_KEY_PREFIX: `mailroom-test:${process.pid}:${Math.random().toString(36).slice(2, 8)}:`,
    ...(APP_USES_REDIS ? { MAILROOM_REDIS_URL: TEST_REDIS_URL } : {}),
    // A dashboard build of the developer's choosing (one that no concurrent `npm run build` replaces).
    ...(process.env.MAILROOM_DASHBOARD_DIR ? { MAILROOM_DASHBOARD_DIR: process.env.MAILROOM_DASHBOARD_DIR } : {}),
    ...options.env,
  };
  if (options.config) {
    const file = join(database.dataDir, 'mailroom.json');
    writeFileSync(file, JSON.stringify(options.config));
    env.MAILROOM_CONFIG = file;
  }
  const config = loadConfig(env);
  const runtime = await createRuntime(config, { logger: createLogger(config.logLevel), clock: options.clock });
  const api = await startApiServer(runtime, { extraRoutes: options.extraRoutes });
  return {
    url: api.url,
    runtime,
    api,
    async createTeam(name = 'Test team', planCode?: string) {
      const team = await runtime.services.teams.create({ name, planCode });
      const key = await runtime.services.apiKeys.create(team.id, { name: 'test key', permission: 'full_access' });
      return { teamId: team.id, token: key.token, keyId: key.id };
    },
    async close() {
      await api.close();
      await runtime.close();
      await database.drop();
    },
  };
}
