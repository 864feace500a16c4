import t from 'tap';
import { checkGalera } from '../../../../core/platform/doctor/galera-checks.js';
import { connectTestDatabase, TEST_DB_KIND } from '../../../helpers/test-database.js';

/**
 * The doctor's Galera checks are for Galera members only: a single MariaDB (wsrep_on off) and
 * SQLite get none. On a member they are exercised by the cluster test (test/cluster/), which runs
 * `mailroom doctor` on a node and expects galera_cluster, galera_settings and galera_sync_wait ok.
 */
t.test(`no Galera checks on a database that is not a member (${TEST_DB_KIND})`, async (t) => {
  const { db, close } = await connectTestDatabase();
  t.teardown(close);
  t.same(await checkGalera(db), [], 'nothing reported');
});
