import type { Database } from '../../../db/connection.js';
import { result, type CheckResult } from './doctor.types.js';

/** Below this many members, losing one member leaves no majority: the rest stop taking writes. */
export const GALERA_MIN_MEMBERS = 3;

type Settings = {
  wsrepOn: string | number | null;
  binlogFormat: string;
  autoincLockMode: string | number;
  storageEngine: string;
  syncWait: string | number;
};

/**
 * The checks of a database that is a MariaDB Galera member (none otherwise: a single MariaDB or
 * MySQL has no wsrep_on, or has it off). The member must be in the primary component and synced;
 * the cluster's settings must be those Galera needs to replicate Mailroom's writes (row-based
 * binary log, interleaved auto-increment locks, InnoDB); and this node's sessions should wait
 * for the cluster's earlier commits before they read (wsrep_sync_wait), or a resource created
 * through one node can be missing when read through another.
 */
export async function checkGalera(db: Database): Promise<CheckResult[]> {
  if (db.dialect !== 'mysql') return [];
  let settings: Settings;
  try {
    const [rows] = (await db.knex.raw(
      `SELECT @@global.wsrep_on AS wsrepOn, @@global.binlog_format AS binlogFormat,
              @@global.innodb_autoinc_lock_mode AS autoincLockMode,
              @@global.default_storage_engine AS storageEngine, @@session.wsrep_sync_wait AS syncWait`,
    )) as [Settings[]];
    settings = rows[0]!;
  } catch {
    return []; // MySQL without wsrep variables: not a Galera member
  }
  if (!['1', 'ON'].includes(String(settings.wsrepOn).toUpperCase())) return [];
  const [statusRows] = (await db.knex.raw(
    `SHOW GLOBAL STATUS WHERE Variable_name IN
       ('wsrep_cluster_status', 'wsrep_ready', 'wsrep_local_state_comment', 'wsrep_cluster_size')`,
  )) as [Array<{ Variable_name: string; Value: string }>];
  const status = Object.fromEntries(statusRows.map((row) => [row.Variable_name, row.Value]));
  return [clusterCheck(status), settingsCheck(settings), syncWaitCheck(Number(settings.syncWait))];
}

function clusterCheck(status: Record<string, string>): CheckResult {
  const size = Number(status.wsrep_cluster_size ?? 0);
  const state = status.wsrep_local_state_comment ?? 'unknown';
  const detail = `${status.wsrep_cluster_status ?? 'unknown'} component, ${state}, ${size} member${size === 1 ? '' : 's'}`;
  if (status.wsrep_cluster_status !== 'Primary' || status.wsrep_ready !== 'ON')
    return result(
      'galera_cluster',
      'database',
      'fail',
      `${detail}: this member refuses statements until it is back in the primary component`,
    );
  if (state !== 'Synced')
    return result('galera_cluster', 'database', 'warn', `${detail}: the member is catching up (IST or SST)`);
  if (size < GALERA_MIN_MEMBERS)
    return result(
      'galera_cluster',
      'database',
      'warn',
      `${detail}: with fewer than ${GALERA_MIN_MEMBERS} members, losing one stops the cluster (no majority)`,
    );
  return result('galera_cluster', 'database', 'ok', detail);
}

function settingsCheck(settings: Settings): CheckResult {
  const wrong: string[] = [];
  if (String(settings.binlogFormat).toUpperCase() !== 'ROW')
    wrong.push(`binlog_format is ${settings.binlogFormat}, Galera replicates ROW only`);
  if (Number(settings.autoincLockMode) !== 2)
    wrong.push(`innodb_autoinc_lock_mode is ${settings.autoincLockMode}, Galera needs 2`);
  if (String(settings.storageEngine).toUpperCase() !== 'INNODB')
    wrong.push(`default_storage_engine is ${settings.storageEngine}, Galera replicates InnoDB only`);
  return wrong.length === 0
    ? result('galera_settings', 'database', 'ok', 'binlog_format=ROW, innodb_autoinc_lock_mode=2, InnoDB')
    : result('galera_settings', 'database', 'fail', wrong.join('; '));
}

function syncWaitCheck(syncWait: number): CheckResult {
  // Bit 1 makes reads (SELECT, SHOW, BEGIN) wait for the cluster's earlier commits.
  return syncWait % 2 === 1
    ? result('galera_sync_wait', 'database', 'ok', `wsrep_sync_wait is ${syncWait} in this node's sessions`)
    : result(
        'galera_sync_wait',
        'database',
        'warn',
        `wsrep_sync_wait is ${syncWait}: a read through this member may miss what another node committed an instant before; set database.wsrepSyncWait to 1`,
      );
}
