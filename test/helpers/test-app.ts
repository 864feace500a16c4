import { startApiServer, type ApiServer } from '../../api/server.js';
import type { RouteDef } from '../../api/route.js';
import { createRuntime, type Runtime } from '../../core/runtime.js';
import { loadConfig } from '../../lib/config/load-config.js';
import { createLogger } from '../../lib/logger.js';
import { APP_USES_REDIS, createTestDatabase, TEST_REDIS_URL } from './test-database.js';

export const UA = 'mailroom-tests/1.0';

export type TestApp = {
  url: string;
  runtime: Runtime;
  api: ApiServer;
  /** A new team with a full_access key. */
  createTeam(name?: string): Promise<{ teamId: string; token: string; keyId: string }>;
  close(): Promise<void>;
};

export type TestAppOptions = { extraRoutes?: RouteDef[]; rateLimitPerSecond?: number; env?: Record<string, string> };

/**
 * A real appliance for one test file: its own database (SQLite or MariaDB), Redis or the
 * in-process store as the CI pass says, a real HTTP server on a free loopback port.
 * The rate limit is raised unless a test asks for the real one, so other tests never see 429s.
 */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const database = createTestDatabase();
  const env: Record<string, string> = {
    MAILROOM_ENV: 'test',
    MAILROOM_LOG_LEVEL: process.env.MAILROOM_TEST_LOG_LEVEL ?? 'silent',
    MAILROOM_DATA_DIR: database.dataDir,
    MAILROOM_DATABASE_URL: database.url,
    MAILROOM_API_PORT: '0',
    MAILROOM_RATE_LIMIT_PER_SECOND: String(options.rateLimitPerSecond ?? 100000),
    MAILROOM_REDIS_KEY_PREFIX: `mailroom-test:${process.pid}:${Math.random().toString(36).slice(2, 8)}:`,
    ...(APP_USES_REDIS ? { MAILROOM_REDIS_URL: TEST_REDIS_URL } : {}),
    ...options.env,
  };
  const config = loadConfig(env);
  const runtime = await createRuntime(config, { logger: createLogger(config.logLevel) });
  const api = await startApiServer(runtime, { extraRoutes: options.extraRoutes });
  return {
    url: api.url,
    runtime,
    api,
    async createTeam(name = 'Test team') {
      const team = await runtime.services.teams.create({ name });
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
