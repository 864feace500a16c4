import { CopiedSpool } from '../db/copied-spool.js';
import { resolve } from 'node:path';
import { createServices, type Services } from './services.js';
import { connect, ensureMysqlDatabase, type Database } from '../db/connection.js';
import { durabilityWarnings } from '../db/dialect.js';
import { migrateLatest } from '../db/migrate.js';
import { FileBlobStore } from '../lib/blob-store.js';
import { SegmentSpool } from '../lib/spool/segment-spool.js';
import { systemClock, type Clock } from '../lib/clock.js';
import type { Config } from '../lib/config/config.schema.js';
import { ConfigError } from '../lib/errors.js';
import { createKeyValueStore } from '../lib/kv/create-kv.js';
import type { KeyValueStore } from '../lib/kv/kv.js';
import type { TlsResultSink } from '../core/sending/tls-reports/tls-result.types.js';
import { createLogger, type Logger } from '../lib/logger.js';
import { ProcessMetrics } from '../lib/metrics/process-metrics.js';
import { VERSION } from '../lib/version.js';
import { createDnsLookup, reportingTemporaryFailures, type DnsLookup } from '../lib/dns/dns-resolver.js';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';

/** Everything a Mailroom process runs on, built once at start-up. */
export type Runtime = {
  config: Config;
  logger: Logger;
  db: Database;
  kv: KeyValueStore;
  blobs: FileBlobStore;
  clock: Clock;
  services: Services;
  /** The configured DNS resolver (domain verification, MX look-ups). */
  lookup: DnsLookup;
  /** Set by the API server once it listens (the port may be 0). */
  publicUrl: { value: string };
  /** The dashboard's own public URL, when it has a listener of its own ('' otherwise). */
  dashboardUrl: { value: string };
  /** This process's Prometheus metrics (served by `mailroom` processes on metrics.host:port). */
  metrics: ProcessMetrics;
  /** Where the mta records each connection's TLS result (RFC 8460); unset: services.tlsReports.sink (tests set their own). */
  tlsResults?: TlsResultSink;
  close(): Promise<void>;
};

export function assertStartable(config: Config): void {
  if (config.env === 'production' && !config.masterKey) {
    throw new ConfigError(
      'Invalid configuration:\n  masterKey (MAILROOM_MASTER_KEY): required in production (32+ characters); it encrypts secrets at rest',
    );
  }
}

/**
 * The configured master key; outside production, one generated once into dataDir/master.key
 * (mode 0600) so a development node works out of the box and keeps its secrets readable.
 */
function resolveMasterKey(config: Config, logger: Logger): string {
  if (config.masterKey) return config.masterKey;
  assertStartable(config);
  const path = join(resolve(config.dataDir), 'master.key');
  if (!existsSync(path)) {
    mkdirSync(resolve(config.dataDir), { recursive: true });
    try {
      writeFileSync(path, randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' });
      logger.warn(
        { path },
        'no masterKey configured: generated a development master key (set MAILROOM_MASTER_KEY in production)',
      );
    } catch (err) {
      // Another process of this node created it first: use theirs.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  return readFileSync(path, 'utf8').trim();
}

/**
 * Connects to the database (creating the MySQL database on first start), applies pending
 * migrations, and builds the services. `migrate: false` is for commands that must not change
 * the schema.
 */
export async function createRuntime(
  config: Config,
  options: { migrate?: boolean; logger?: Logger; clock?: Clock } = {},
): Promise<Runtime> {
  const logger = options.logger ?? createLogger(config.logLevel, { pretty: config.env === 'development' });
  const clock = options.clock ?? systemClock;
  if (config.database.url.startsWith('mysql://') || config.database.url.startsWith('mariadb://'))
    await ensureMysqlDatabase(config.database.url);
  const db = connect(config.database.url, config.database.poolMax, { wsrepSyncWait: config.database.wsrepSyncWait });
  try {
    if (options.migrate !== false) {
      const applied = await migrateLatest(db.knex);
      // One line, not one name per line (a first start applies them all); the names at debug.
      if (applied.length > 0) {
        const latest = applied.at(-1)!;
        const count = `${applied.length} migration${applied.length === 1 ? '' : 's'}`;
        logger.info({ applied: applied.length, latest }, `database: applied ${count} (latest ${latest})`);
        logger.debug({ migrations: applied }, 'database: migrations applied');
      }
    }
    for (const warning of await durabilityWarnings(db.knex, db.dialect)) logger.warn(`DURABILITY WARNING: ${warning}`);
  } catch (err) {
    await db.knex.destroy();
    throw err;
  }
  const kv = createKeyValueStore(config.redis);
  const blobs = new FileBlobStore(resolve(config.dataDir));
  const spoolDir = join(resolve(config.dataDir), 'spool');
  const spool = config.spool.copyToDatabase ? new CopiedSpool(spoolDir, db.knex) : new SegmentSpool(spoolDir);
  const publicUrl = { value: (config.api.publicUrl ?? `http://127.0.0.1:${config.api.port}`).replace(/\/+$/, '') };
  // The dashboard's own URL when it has a listener of its own (else the API's URL serves it).
  const dashboardUrl = { value: (config.dashboard.publicUrl ?? '').replace(/\/+$/, '') };
  const metrics = new ProcessMetrics();
  const lookup = reportingTemporaryFailures(
    createDnsLookup({ servers: config.dns.servers, timeoutMs: config.dns.timeoutMs }),
    (type, code) => metrics.dnsErrors.inc({ type, code }),
  );
  const masterKey = resolveMasterKey(config, logger);
  const services = createServices({
    knex: db.knex,
    dialect: db.dialect,
    kv,
    blobs,
    spool,
    clock,
    config,
    version: VERSION,
    publicUrl: () => publicUrl.value,
    dashboardUrl: () => dashboardUrl.value || publicUrl.value,
    lookup,
    masterKey,
    logger,
  });
  return {
    config,
    logger,
    db,
    kv,
    blobs,
    clock,
    services,
    lookup,
    publicUrl,
    dashboardUrl,
    metrics,
    async close() {
      // Reset mails answered before the shutdown began are finished, not dropped.
      await services.accountRecovery.drain();
      await services.processLease.stop();
      // The mta's TLS session counts not yet written (RFC 8460 reports); nothing elsewhere.
      await services.tlsReports.sink.stop();
      await spool.close();
      await kv.close();
      await db.knex.destroy();
    },
  };
}
