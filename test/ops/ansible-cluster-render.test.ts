import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { loadConfig } from '../../lib/config/load-config.js';
import { renderClusterConfig, type ClusterTopology } from '../helpers/cluster/render-cluster-config.js';

/**
 * The cluster's configuration as the Ansible roles render it (test/fixtures/cluster/render.yml,
 * through renderClusterConfig, which the cluster test uses too): three Galera members on one
 * address, a Redis primary, a replica and a sentinel, two nodes each pointed at its own member.
 * Nothing is started here: the files must hold the settings, and Mailroom's configuration
 * loader must read each node's mailroom.json and mailroom.env as a cluster node.
 */
const hasPlaybook = await promisify(execFile)('ansible-playbook', ['--version']).then(
  () => true,
  () => false,
);
const MISSING =
  'ansible-playbook is not installed (apt-get install --no-install-recommends ansible-core ansible-lint; CI installs them)';

if (process.env.MAILROOM_TEST_DATABASE_URL) {
  t.plan(0, 'the rendering test runs in the SQLite pass only (MAILROOM_TEST_DATABASE_URL is set)');
} else if (!hasPlaybook && !process.env.CI) {
  t.plan(0, MISSING);
} else {
  t.setTimeout(5 * 60_000);
  if (!hasPlaybook) t.fail(MISSING);

  t.test('the roles render a three-member Galera cluster, a replica, a sentinel and two nodes', async (t) => {
    const renderDir = mkdtempSync(join(tmpdir(), 'mailroom-cluster-render-'));
    t.teardown(() => rmSync(renderDir, { recursive: true, force: true }));
    const topology: ClusterTopology = {
      renderDir,
      galera: [1, 2, 3].map((n) => ({
        host: `db${n}`,
        address: '127.0.0.1',
        port: 33060 + n,
        galeraPort: 45670 + n,
        istPort: 45680 + n,
        sstPort: 44440 + n,
      })),
      redis: {
        name: 'mailroom-test',
        password: 'redis-secret',
        primary: { host: 'redis1', address: '127.0.0.1', port: 63791 },
        replica: { host: 'redis2', address: '127.0.0.1', port: 63792 },
        sentinel: { host: 'sentinel1', address: '127.0.0.1', port: 26391 },
      },
      nodes: [
        { host: 'node1', address: '127.0.0.1', apiPort: 30001, galeraMember: 'db1' },
        { host: 'node2', address: '127.0.0.1', apiPort: 30002, galeraMember: 'db2' },
      ],
      database: { name: 'mailroom_cluster', user: 'mailroom', password: 'db-secret' },
      masterKey: 'k'.repeat(64),
    };
    const rendered = await renderClusterConfig(topology);

    const gcomm = 'gcomm://127.0.0.1:45671,127.0.0.1:45672,127.0.0.1:45673';
    for (const member of topology.galera) {
      const galera = readFileSync(rendered.galera[member.host]!.galeraCnf, 'utf8');
      const settings = parseCnf(galera);
      t.match(
        settings,
        {
          wsrep_on: 'ON',
          wsrep_provider: '/usr/lib/galera/libgalera_smm.so',
          wsrep_cluster_address: gcomm,
          wsrep_node_name: member.host,
          wsrep_node_address: `127.0.0.1:${member.galeraPort}`,
          wsrep_sst_method: 'rsync',
          wsrep_sst_receive_address: `127.0.0.1:${member.sstPort}`,
          binlog_format: 'ROW',
          default_storage_engine: 'InnoDB',
          innodb_autoinc_lock_mode: '2',
        },
        `${member.host}: Galera settings`,
      );
      t.match(
        settings.wsrep_provider_options,
        `gmcast.listen_addr=tcp://127.0.0.1:${member.galeraPort}; ist.recv_addr=127.0.0.1:${member.istPort}; gcache.size=`,
        `${member.host}: its own replication and IST ports`,
      );
      t.notMatch(galera, /^\s*(datadir|socket|user)\s*=/m, `${member.host}: no datadir, socket or user`);
      const mariadb = parseCnf(readFileSync(rendered.galera[member.host]!.mariadbCnf, 'utf8'));
      t.match(mariadb, { 'bind-address': '127.0.0.1', port: String(member.port) }, `${member.host}: its own port`);
    }

    const primary = readFileSync(rendered.redis.primaryConf, 'utf8');
    const replica = readFileSync(rendered.redis.replicaConf, 'utf8');
    t.match(primary, /^port 63791$/m, 'the primary on its port');
    t.match(primary, /^requirepass redis-secret$/m, 'the primary has the password');
    t.notMatch(primary, /^replicaof /m, 'the primary replicates nothing');
    t.match(replica, /^port 63792$/m, 'the replica on its port');
    t.match(replica, /^replicaof 127\.0\.0\.1 63791$/m, 'the replica follows the primary');
    t.match(replica, /^masterauth redis-secret$/m, 'with the primary password');
    const sentinel = readFileSync(rendered.redis.sentinelConf, 'utf8');
    t.match(sentinel, /^port 26391$/m, 'the sentinel on its port');
    t.match(sentinel, /^sentinel monitor mailroom-test 127\.0\.0\.1 63791 1$/m, 'it monitors the primary (quorum 1)');
    t.match(sentinel, /^sentinel auth-pass mailroom-test redis-secret$/m, 'with its password');
    t.match(sentinel, /^daemonize no$/m, 'in the foreground');

    for (const node of topology.nodes) {
      const { env, json } = rendered.nodes[node.host]!;
      const member = topology.galera.find((candidate) => candidate.host === node.galeraMember)!;
      t.match(
        env,
        {
          MAILROOM_MASTER_KEY: topology.masterKey,
          MAILROOM_DATABASE_URL: `mysql://mailroom:db-secret@127.0.0.1:${member.port}/mailroom_cluster`,
          MAILROOM_DATABASE_WSREP_SYNC_WAIT: '1',
          MAILROOM_REDIS_SENTINELS: '127.0.0.1:26391',
          MAILROOM_REDIS_NAME: 'mailroom-test',
          MAILROOM_REDIS_PASSWORD: 'redis-secret',
        },
        `${node.host}: its own Galera member and the sentinels`,
      );
      t.notOk('MAILROOM_REDIS_URL' in env, `${node.host}: no Redis URL with sentinels`);
      const config = loadConfig(env, json);
      t.match(
        config,
        {
          api: { host: '127.0.0.1', port: node.apiPort },
          spool: { copyToDatabase: true },
          database: { url: env.MAILROOM_DATABASE_URL, wsrepSyncWait: 1 },
          redis: { sentinels: ['127.0.0.1:26391'], name: 'mailroom-test', password: 'redis-secret' },
        },
        `${node.host}: Mailroom reads it as a cluster node`,
      );
      t.equal(config.redis.url, undefined, `${node.host}: no redis.url`);
    }
  });
}

/** name = value lines of a MariaDB option file (the last one wins, as in MariaDB). */
function parseCnf(text: string): Record<string, string> {
  const settings: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const match = /^([a-z_-]+)\s*=\s*(.*)$/.exec(line.trim());
    if (match) settings[match[1]!] = match[2]!.replace(/^"(.*)"$/, '$1');
  }
  return settings;
}
