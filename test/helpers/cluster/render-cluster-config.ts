import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * The configuration of a cluster on one machine (the cluster test's): three MariaDB Galera
 * members, a Redis primary, a replica and a sentinel, and Mailroom nodes, each on its own ports,
 * rendered by ansible-playbook from the Ansible roles' own templates and defaults
 * (test/fixtures/cluster/render.yml), so that the test runs what an installation gets.
 */
export type ClusterTopology = {
  renderDir: string;
  galera: Array<{ host: string; address: string; port: number; galeraPort: number; istPort: number; sstPort: number }>;
  redis: {
    name: string;
    password: string;
    primary: { host: string; address: string; port: number };
    replica: { host: string; address: string; port: number };
    sentinel: { host: string; address: string; port: number };
  };
  nodes: Array<{ host: string; address: string; apiPort: number; galeraMember: string /* a galera host name */ }>;
  database: { name: string; user: string; password: string };
  masterKey: string;
  /** More inventory variables for every host (e.g. mailroom_redis_sentinel_down_after_ms: 1000). */
  vars?: Record<string, unknown>;
};

export type RenderedCluster = {
  /** Per Galera host: 61-mailroom-galera.cnf and 60-mailroom.cnf, for `!include` in a defaults file. */
  galera: Record<string, { galeraCnf: string; mariadbCnf: string }>;
  /** redis-mailroom.conf of the primary and the replica (for `include`), and sentinel.conf (copy it: sentinel rewrites it). */
  redis: { primaryConf: string; replicaConf: string; sentinelConf: string };
  /** Per node: mailroom.json and the parsed KEY=VALUE lines of mailroom.env. */
  nodes: Record<string, { json: string; env: Record<string, string> }>;
};

const run = promisify(execFile);
const repo = join(import.meta.dirname, '..', '..', '..');
const ansibleDir = join(repo, 'ansible');
const playbook = join(repo, 'test', 'fixtures', 'cluster', 'render.yml');

/**
 * Writes an inventory for the topology into renderDir, runs render.yml with it, and returns the
 * rendered files (under renderDir/<inventory host>/). Throws with ansible-playbook's output when
 * the play fails.
 */
export async function renderClusterConfig(topology: ClusterTopology): Promise<RenderedCluster> {
  mkdirSync(topology.renderDir, { recursive: true });
  const inventory = join(topology.renderDir, 'inventory.yml');
  // JSON is YAML: ansible-playbook reads it with its YAML inventory plugin.
  writeFileSync(inventory, JSON.stringify(clusterInventory(topology), null, 2));
  for (const node of topology.nodes) mkdirSync(join(topology.renderDir, node.host, 'data'), { recursive: true });

  await run('ansible-playbook', ['-i', inventory, playbook], {
    cwd: ansibleDir,
    env: {
      ...process.env,
      ANSIBLE_CONFIG: join(ansibleDir, 'ansible.cfg'),
      ANSIBLE_NOCOLOR: '1',
      ANSIBLE_FORCE_COLOR: '0',
    },
    maxBuffer: 64 * 1024 * 1024,
  }).catch((err: { stdout?: string; stderr?: string; message: string }) => {
    const output = `${err.stdout ?? ''}${err.stderr ?? ''}`.trim().split('\n').slice(-40).join('\n');
    throw new Error(`render.yml failed: ${err.message}\n${output}`);
  });

  const file = (host: string, name: string) => {
    const path = join(topology.renderDir, host, name);
    if (!existsSync(path)) throw new Error(`render.yml wrote no ${path}`);
    return path;
  };
  const { redis } = topology;
  return {
    galera: Object.fromEntries(
      topology.galera.map((member) => [
        member.host,
        { galeraCnf: file(member.host, '61-mailroom-galera.cnf'), mariadbCnf: file(member.host, '60-mailroom.cnf') },
      ]),
    ),
    redis: {
      primaryConf: file(redis.primary.host, 'redis-mailroom.conf'),
      replicaConf: file(redis.replica.host, 'redis-mailroom.conf'),
      sentinelConf: file(redis.sentinel.host, 'sentinel.conf'),
    },
    nodes: Object.fromEntries(
      topology.nodes.map((node) => [
        node.host,
        { json: file(node.host, 'mailroom.json'), env: readEnvFile(file(node.host, 'mailroom.env')) },
      ]),
    ),
  };
}

/** The inventory: the roles' variables for each host, as an operator would set them. */
function clusterInventory(topology: ClusterTopology) {
  const { redis, renderDir } = topology;
  const members = new Set(topology.galera.map((member) => member.host));
  for (const node of topology.nodes)
    if (!members.has(node.galeraMember)) throw new Error(`${node.host}: ${node.galeraMember} is no Galera host`);
  // A host in several groups has one address for Redis and its sentinel (mailroom_redis_address).
  for (const server of [redis.primary, redis.replica])
    if (server.host === redis.sentinel.host && server.address !== redis.sentinel.address)
      throw new Error(`${server.host}: Redis and its sentinel need one address`);
  const hostDir = (host: string) => join(renderDir, host);
  return {
    all: {
      vars: {
        ansible_connection: 'local',
        ansible_python_interpreter: 'auto_silent',
        mailroom_render_dir: renderDir,
        mailroom_galera: true,
        mailroom_redis_sentinel: true,
        mailroom_redis_sentinel_name: redis.name,
        mailroom_redis_password: redis.password,
        mailroom_database_name: topology.database.name,
        mailroom_database_user: topology.database.user,
        mailroom_database_password: topology.database.password,
        mailroom_master_key: topology.masterKey,
        // Three members on one machine: a small write-set cache file and buffer pool each.
        mailroom_galera_gcache_size: '64M',
        mailroom_mariadb_settings: {
          innodb_flush_log_at_trx_commit: 1,
          max_connections: 200,
          innodb_buffer_pool_size: '128M',
        },
        ...topology.vars,
      },
      children: {
        mailroom_db: {
          hosts: Object.fromEntries(
            topology.galera.map((member) => [
              member.host,
              {
                mailroom_galera_address: member.address,
                mailroom_mariadb_port: member.port,
                mailroom_galera_port: member.galeraPort,
                mailroom_galera_ist_port: member.istPort,
                mailroom_galera_sst_port: member.sstPort,
              },
            ]),
          ),
        },
        // The first host is the primary.
        mailroom_redis: {
          hosts: Object.fromEntries(
            [redis.primary, redis.replica].map((server) => [
              server.host,
              { mailroom_redis_address: server.address, mailroom_redis_port: server.port },
            ]),
          ),
        },
        mailroom_redis_sentinels: {
          hosts: {
            [redis.sentinel.host]: {
              mailroom_redis_address: redis.sentinel.address,
              mailroom_redis_sentinel_port: redis.sentinel.port,
              mailroom_redis_sentinel_dir: hostDir(redis.sentinel.host),
              mailroom_redis_sentinel_pidfile: join(hostDir(redis.sentinel.host), 'sentinel.pid'),
              mailroom_redis_sentinel_logfile: '', // stdout
            },
          },
        },
        mailroom: {
          children: Object.fromEntries(
            ['mailroom_api', 'mailroom_mta', 'mailroom_scheduler'].map((group) => [
              group,
              {
                hosts: Object.fromEntries(
                  topology.nodes.map((node) => [
                    node.host,
                    {
                      mailroom_api_host: node.address,
                      mailroom_api_port: node.apiPort,
                      mailroom_galera_member: node.galeraMember,
                      mailroom_data_dir: join(hostDir(node.host), 'data'),
                    },
                  ]),
                ),
              },
            ]),
          ),
        },
      },
    },
  };
}

/** KEY=VALUE lines of an environment file (mailroom.env, systemd's EnvironmentFile). */
export function readEnvFile(path: string): Record<string, string> {
  const entries: Record<string, string> = {};
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const match = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line);
    if (match) entries[match[1]!] = match[2]!;
  }
  return entries;
}
