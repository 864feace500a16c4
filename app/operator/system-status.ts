import type { Knex } from 'knex';
import type { Readiness } from '../../core/platform/health/readiness.service.js';
import { readTimestamp } from '../../db/dialect.js';
import type { Dialect } from '../../db/connection.js';
import type { Config } from '../../lib/config/config.schema.js';
import type { KeyValueStore } from '../../lib/kv/kv.js';

/**
 * The metrics ports of the systemd units (systemd/mailroom-*.service): each process serves its
 * own /metrics on metrics.host. A node run otherwise (`mailroom start`, containers) may differ,
 * so the configured port of this process is listed too.
 */
const UNIT_METRICS_PORTS: Record<string, number> = {
  api: 9464,
  mta: 9465,
  scheduler: 9466,
  submission: 9467,
  inbound: 9468,
};

/** Where the processes log, which the API cannot read back (docs/operating/processes.md). */
export const LOGS_GO_TO =
  'Each process logs one JSON object per line on standard output; under systemd journald keeps it (journalctl -u mailroom-api -u mailroom-mta -u mailroom-scheduler -u mailroom-submission -u mailroom-inbound). The API cannot read those logs back.';

async function databaseVersion(knex: Knex, dialect: Dialect): Promise<string | null> {
  const raw = (await knex.raw(
    dialect === 'sqlite' ? 'select sqlite_version() as v' : 'select version() as v',
  )) as unknown;
  // SQLite answers the rows; mysql2 answers [rows, fields].
  const rows = (dialect === 'sqlite' ? raw : (raw as unknown[])[0]) as Array<{ v: string }>;
  return rows[0]?.v ?? null;
}

type RedisLike = KeyValueStore & { serverVersion?: () => Promise<string | null> };

/** Versions, dependencies, processes and metrics addresses, for GET /admin/system. */
export async function systemStatus(deps: {
  knex: Knex;
  dialect: Dialect;
  kv: KeyValueStore;
  config: Config;
  version: string;
  readiness: Readiness;
  now: Date;
}) {
  const { readiness, kv } = deps;
  const databaseCheck = readiness.checks.find((check) => check.name === 'database');
  let dbVersion: string | null = null;
  let dbError = databaseCheck?.ok === false ? (databaseCheck.error ?? 'unreachable') : null;
  try {
    dbVersion = await databaseVersion(deps.knex, deps.dialect);
  } catch (err) {
    dbError ??= (err as Error).message;
  }
  const redisCheck = readiness.checks.find((check) => check.name === 'redis');
  let redisVersion: string | null = null;
  let redisError = redisCheck?.ok === false ? (redisCheck.error ?? 'unreachable') : null;
  if (kv.kind === 'redis' && (kv as RedisLike).serverVersion) {
    try {
      redisVersion = await (kv as RedisLike).serverVersion!();
    } catch (err) {
      redisError ??= (err as Error).message;
    }
  }
  const leases = (await deps.knex('process_leases').orderBy(['node', 'started_at'])) as Array<Record<string, unknown>>;
  const { metrics } = deps.config;
  const ports = [...new Set([metrics.port, ...Object.values(UNIT_METRICS_PORTS)])].filter((port) => port > 0);
  return {
    versions: { app: deps.version, node: process.version, database: dbVersion, redis: redisVersion },
    readiness: {
      status: readiness.status,
      failed: readiness.failed,
      checks: readiness.checks.map((check) => ({
        name: check.name,
        ok: check.ok,
        duration_ms: check.durationMs,
        error: check.error ?? null,
      })),
    },
    database: { dialect: deps.dialect, ok: dbError === null, error: dbError },
    redis: {
      configured: kv.kind === 'redis',
      ok: kv.kind === 'redis' ? redisError === null : null,
      error: kv.kind === 'redis' ? redisError : null,
    },
    // Processes that hold a lease (the API and the scheduler register one; see ProcessLease).
    processes: leases.map((row) => {
      const expiresAt = readTimestamp(row.expires_at);
      return {
        id: String(row.id),
        node: String(row.node),
        pid: Number(row.pid),
        started_at: readTimestamp(row.started_at).toISOString(),
        expires_at: expiresAt.toISOString(),
        alive: expiresAt.getTime() > Date.now(),
      };
    }),
    metrics: {
      enabled: metrics.enabled,
      addresses: metrics.enabled ? ports.map((port) => `http://${metrics.host}:${port}/metrics`) : [],
      by_process: metrics.enabled
        ? Object.entries(UNIT_METRICS_PORTS).map(([process, port]) => ({
            process,
            address: `http://${metrics.host}:${port}/metrics`,
          }))
        : [],
    },
  };
}

/**
 * The API's recent server errors (answers of 500 and above) from the request log store: the one
 * log the database keeps. Only team requests are logged there; process logs are not readable.
 */
export async function recentErrors(knex: Knex, limit: number) {
  const rows = (await knex('request_logs')
    .select('created_at', 'request_id', 'method', 'endpoint', 'response_status', 'team_id', 'response_body')
    .where('response_status', '>=', 500)
    .orderBy('created_at', 'desc')
    .limit(limit)) as Array<Record<string, unknown>>;
  return rows.map((row) => ({
    at: readTimestamp(row.created_at).toISOString(),
    request_id: (row.request_id as string | null) ?? null,
    method: String(row.method),
    path: String(row.endpoint),
    status: Number(row.response_status),
    team_id: (row.team_id as string | null) ?? null,
    error_name: errorNameOf(row.response_body),
  }));
}

function errorNameOf(body: unknown): string | null {
  if (typeof body !== 'string') return null;
  try {
    const parsed = JSON.parse(body) as { name?: unknown };
    return typeof parsed.name === 'string' ? parsed.name : null;
  } catch {
    return null;
  }
}
