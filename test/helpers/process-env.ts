import type { TestDatabase } from './test-database.js';
import type { TestDnsServer } from './dns-server.js';

/**
 * The environment of a `mailroom` command or process a CLI test runs: the test's database and
 * data dir, any free port for every listener, no configuration file; `extra` on top.
 */
export function commandEnv(database: TestDatabase, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    MAILROOM_CONFIG: '',
    MAILROOM_DATA_DIR: database.dataDir,
    MAILROOM_DATABASE_URL: database.url,
    MAILROOM_API_PORT: '0',
    MAILROOM_SUBMISSION_PORT: '0',
    MAILROOM_INBOUND_PORT: '0',
    MAILROOM_METRICS_PORT: '0',
    ...extra,
  };
}

/**
 * The environment of an appliance process a test spawns (spawn-mailroom.ts): the test's
 * database and DNS server, any free port, a rate limit out of the way, and no Redis (the
 * process keeps its rate limits in memory, so a test's kills leave nothing behind).
 */
export function applianceProcessEnv(database: TestDatabase, dns: TestDnsServer): NodeJS.ProcessEnv {
  const env = commandEnv(database, {
    MAILROOM_ENV: 'test',
    MAILROOM_LOG_LEVEL: 'info',
    MAILROOM_DNS_SERVERS: dns.address,
    MAILROOM_RATE_LIMIT_PER_SECOND: '100000',
  });
  delete env.MAILROOM_REDIS_URL;
  delete env.MAILROOM_CRASH_POINT;
  return env;
}
