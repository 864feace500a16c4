/**
 * Every driver (mysql2, better-sqlite3) and operating-system error code the code base reacts to,
 * in one list, with the predicates the rest of the code asks instead of comparing codes.
 */
const CODES = {
  /** A unique index refused the row: someone else holds the key. */
  uniqueViolation: ['ER_DUP_ENTRY', 'SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY'],
  /**
   * Another transaction was in the way (deadlock victim, lock wait, SQLite's writer lock): the same
   * work may succeed now. Galera reports a write set that lost certification against another
   * member's commit as a deadlock too (1213, "wsrep aborted transaction").
   */
  conflict: ['ER_LOCK_DEADLOCK', 'ER_LOCK_WAIT_TIMEOUT', 'SQLITE_BUSY', 'SQLITE_BUSY_SNAPSHOT'],
  /** The database cannot be reached or took no more connections. */
  connectionLost: [
    'ECONNREFUSED',
    'ECONNRESET',
    'EPIPE',
    'ETIMEDOUT',
    'EHOSTUNREACH',
    'PROTOCOL_CONNECTION_LOST',
    'ER_CON_COUNT_ERROR',
    // The server is shutting down or ended the connection (a Galera member stopped for upkeep).
    'ER_SERVER_SHUTDOWN',
    'ER_CONNECTION_KILLED',
    // 1047 "WSREP has not yet prepared node for application use": a Galera member outside the
    // primary component (it lost quorum, or is still joining) refuses every statement.
    'ER_UNKNOWN_COM_ERROR',
  ],
  /** Storage is full: the spool's disk, SQLite's file, MariaDB's tablespace. */
  diskFull: ['ENOSPC', 'EDQUOT', 'SQLITE_FULL', 'ER_RECORD_FILE_FULL'],
} as const;

type Kind = keyof typeof CODES;
const sets = Object.fromEntries(Object.entries(CODES).map(([kind, codes]) => [kind, new Set<string>(codes)])) as Record<
  Kind,
  Set<string>
>;

const codeOf = (err: unknown): string => String((err as { code?: unknown } | null)?.code ?? '');

export const isUniqueViolation = (err: unknown): boolean => sets.uniqueViolation.has(codeOf(err));
export const isConflict = (err: unknown): boolean => sets.conflict.has(codeOf(err));
export const isConnectionLost = (err: unknown): boolean => sets.connectionLost.has(codeOf(err));
export const isDiskFull = (err: unknown): boolean => sets.diskFull.has(codeOf(err));

/**
 * "A dependency cannot serve now", not "this request is wrong": the database unreachable, out of
 * connections (knex's pool timed out) or busy, or storage full, or a conflict that outlasted the
 * retries (on a busy Galera cluster, certification can refuse the same rows a few times running).
 * Nothing was accepted, and the same request can succeed later (503, retry with backoff).
 */
export function isDependencyDown(err: unknown): boolean {
  return (
    (err as { name?: string } | null)?.name === 'KnexTimeoutError' ||
    isConnectionLost(err) ||
    isConflict(err) ||
    isDiskFull(err) ||
    codeOf(err).startsWith('SQLITE_BUSY')
  );
}
