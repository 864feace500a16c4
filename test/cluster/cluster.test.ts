import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import knexFactory from 'knex';
import t, { type Test } from 'tap';
import { TestDnsServer } from '../helpers/dns-server.js';
import { request } from '../helpers/http.js';
import { SmtpSink } from '../helpers/smtp-sink.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { TEST_DB_KIND } from '../helpers/test-database.js';
import { addVerifiedDomain } from '../helpers/verified-domain.js';
import { GaleraMember, galeraUnavailable, startGaleraCluster } from '../helpers/cluster/galera.js';
import { MailroomNode, type NodeProcessName } from '../helpers/cluster/mailroom-node.js';
import {
  addServicesAddress,
  createTestHost,
  namespacesUnavailable,
  removeLeftovers,
} from '../helpers/cluster/netns.js';
import { startRedisServer, startSentinel, type RedisProcess } from '../helpers/cluster/redis-processes.js';
import { renderClusterConfig, type ClusterTopology } from '../helpers/cluster/render-cluster-config.js';
import { clusterScenario } from './cluster-scenario.js';

/**
 * Several nodes on a Galera cluster (issue 39), with real processes on this machine: three
 * `mariadbd` Galera members, a Redis primary, a replica and a Sentinel, and two Mailroom nodes,
 * each in a network namespace of its own with its own egress address, each running `mailroom
 * api`, `mailroom mta` and `mailroom scheduler`, each pointed at a different member. Every file
 * they read (the members' option files, Redis's and Sentinel's, each node's mailroom.json and
 * mailroom.env) is rendered by the Ansible roles from a cluster inventory. The scenario itself
 * (sends, kills, member stop, checks) is in cluster-scenario.ts.
 *
 * The MariaDB pass of CI runs it (npm run test:mysql); the SQLite pass skips it, and so does a
 * machine without Galera, network namespaces (root) or Ansible, unless CI is set.
 */
const run = promisify(execFile);
const hasAnsible = await run('ansible-playbook', ['--version']).then(
  () => true,
  () => false,
);
const reason =
  TEST_DB_KIND !== 'mysql'
    ? 'the cluster test runs on the MariaDB pass (npm run test:mysql)'
    : (galeraUnavailable() ??
      (await namespacesUnavailable()) ??
      (hasAnsible ? null : 'ansible-playbook is missing (apt-get install ansible-core)'));
if (reason) {
  if (process.env.CI && TEST_DB_KIND === 'mysql') t.fail(`the cluster test cannot run: ${reason}`);
  else t.plan(0, reason);
} else {
  t.test('two nodes on a Galera cluster through a node kill, a member stop and a Redis failover', main);
}

async function main(t: Test): Promise<void> {
  const SERVICES = '10.231.0.1';
  const base = mkdtempSync(join(tmpdir(), 'mailroom-cluster-'));
  // The joiners' rsync (state transfer) runs as nobody: it must reach the data directories.
  chmodSync(base, 0o755);
  const cleanups: Array<() => Promise<unknown>> = [];
  t.teardown(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    if (!process.env.MAILROOM_KEEP_CLUSTER_DIR) rmSync(base, { recursive: true, force: true });
  });
  // A run stopped before its teardown (a killed tap) leaves its processes: they hold the ports.
  await run('pkill', ['-9', '-f', 'mailroom-cluster-|redis-server 10\\.231\\.0\\.1:']).catch(() => undefined);
  await removeLeftovers(SERVICES);
  cleanups.push(await addServicesAddress(SERVICES));

  const hosts = [await createTestHost(1), await createTestHost(2)];
  for (const host of hosts) cleanups.push(() => host.remove());

  const topology: ClusterTopology = {
    renderDir: join(base, 'rendered'),
    galera: [1, 2, 3].map((i) => ({
      host: `db${i}`,
      address: SERVICES,
      port: 33060 + i,
      galeraPort: 45670 + i,
      istPort: 45680 + i,
      sstPort: 44440 + i,
    })),
    redis: {
      name: 'mailroom',
      password: 'cluster-test-redis-password',
      primary: { host: 'redis1', address: SERVICES, port: 16379 },
      replica: { host: 'redis2', address: SERVICES, port: 16380 },
      sentinel: { host: 'redis1', address: SERVICES, port: 26379 },
    },
    nodes: hosts.map((host, i) => ({
      host: `node-${'ab'[i]}`,
      address: host.address,
      apiPort: 3000,
      galeraMember: `db${i + 1}`,
    })),
    database: { name: 'mailroom', user: 'mailroom', password: 'cluster-test-database-password' },
    masterKey: 'cluster-test-master-key-0123456789abcdef',
  };
  const rendered = await renderClusterConfig(topology);

  const members = topology.galera.map(
    (member) =>
      new GaleraMember(member.host, join(base, 'galera'), [
        rendered.galera[member.host]!.mariadbCnf,
        rendered.galera[member.host]!.galeraCnf,
      ]),
  );
  cleanups.push(() => Promise.all(members.map((member) => member.stop('SIGKILL'))));
  await startGaleraCluster(members);
  const { name, user, password } = topology.database;
  await members[0]!.sql(
    `CREATE DATABASE ${name} CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
     CREATE USER '${user}'@'%' IDENTIFIED BY '${password}';
     GRANT ALL PRIVILEGES ON ${name}.* TO '${user}'@'%';`,
  );

  const redisProcesses: RedisProcess[] = [];
  cleanups.push(() => Promise.all(redisProcesses.map((p) => p.stop('SIGKILL'))));
  const { redis } = topology;
  redisProcesses.push(
    await startRedisServer(join(base, 'redis-primary'), rendered.redis.primaryConf, {
      ...redis.primary,
      password: redis.password,
    }),
    await startRedisServer(join(base, 'redis-replica'), rendered.redis.replicaConf, {
      ...redis.replica,
      password: redis.password,
    }),
    await startSentinel(join(base, 'sentinel'), rendered.redis.sentinelConf, redis.sentinel),
  );

  const dns = await TestDnsServer.start(SERVICES);
  cleanups.push(() => dns.close());
  const sink = await SmtpSink.start(SERVICES);
  cleanups.push(() => sink.close());
  dns.add(
    { type: 'MX', name: 'sink.test', exchange: 'mx.sink.test', priority: 10 },
    { type: 'A', name: 'mx.sink.test', address: SERVICES },
  );

  // The test's own view of the cluster (set-up and checks through the API, reads of the rows):
  // an API in this process on the third member, the member no node uses.
  const memberUrl = (i: number) => `mysql://${user}:${password}@${SERVICES}:${topology.galera[i]!.port}/${name}`;
  const sharedEnv: Record<string, string> = {
    MAILROOM_MASTER_KEY: topology.masterKey,
    MAILROOM_DNS_SERVERS: dns.address,
    MAILROOM_MTA_PORT: String(sink.port),
    MAILROOM_RATE_LIMIT_PER_SECOND: '100000',
  };
  const control: TestApp = await startTestApp({
    env: {
      ...sharedEnv,
      ...rendered.nodes[topology.nodes[0]!.host]!.env,
      MAILROOM_DATABASE_URL: memberUrl(2),
      MAILROOM_API_HOST: '127.0.0.1',
      MAILROOM_API_PORT: '0',
      MAILROOM_ENV: 'test',
      // What the nodes' rendered mailroom.json says (the control app reads no config file).
      MAILROOM_SPOOL_COPY_TO_DATABASE: 'true',
    },
  });
  cleanups.push(() => control.close());

  const team = await control.createTeam('Cluster', 'unlimited');
  await addVerifiedDomain(control, dns, team.token, 'sender.test');
  await control.runtime.services.teams.setTier(team.teamId, 2); // out of the sending sandbox

  const logs: Array<{ node: string; process: NodeProcessName; entry: Record<string, unknown> }> = [];
  const nodes = topology.nodes.map((node, i) => {
    // The rendered mailroom.json, with what only a test wants on top: short leases, so that the
    // dead node's claims come back in seconds; small fan-out pages, so a broadcast spans the kill.
    const json = JSON.parse(readFileSync(rendered.nodes[node.host]!.json, 'utf8')) as Record<string, any>;
    const configFile = join(base, `${node.host}.json`);
    writeFileSync(
      configFile,
      JSON.stringify({
        ...json,
        env: 'test',
        mta: {
          ...json.mta,
          leaseMs: 8000,
          pollMs: 200,
          retrySchedule: [2],
          // Each node sends from its own address (the inventory's mailroom_mta_regions per host).
          regions: { 'us-east-1': { ips: [{ address: node.address, helo: `${node.host}.cluster.test` }] } },
        },
        automations: { ...json.automations, leaseMs: 5000 },
        marketing: { ...json.marketing, fanOutPageSize: 10 },
      }),
    );
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE,
      ...rendered.nodes[node.host]!.env,
      ...sharedEnv,
      MAILROOM_CONFIG: configFile,
      MAILROOM_ENV: 'test',
      MAILROOM_LOG_LEVEL: 'debug',
      MAILROOM_DATA_DIR: join(base, node.host, 'data'),
      MAILROOM_METRICS_ENABLED: 'false',
    };
    return new MailroomNode(node.host, hosts[i]!, join(base, node.host), env, (nodeName, processName, entry) =>
      logs.push({ node: nodeName, process: processName, entry }),
    );
  });
  cleanups.push(() => Promise.all(nodes.map((node) => node.kill())));
  await Promise.all(nodes.map((node) => node.start()));

  const memberKnex = (i: number) =>
    knexFactory({ client: 'mysql2', connection: memberUrl(i), pool: { min: 0, max: 2 } });
  const observers = [0, 1, 2].map(memberKnex);
  cleanups.push(() => Promise.all(observers.map((k) => k.destroy())));

  const sentinelClient = () =>
    new Redis({ host: redis.sentinel.address, port: redis.sentinel.port, maxRetriesPerRequest: 1 });

  await clusterScenario(t, {
    team,
    control,
    nodes,
    apiUrls: topology.nodes.map((node) => `http://${node.address}:${node.apiPort}`),
    members,
    observers,
    sink,
    logs,
    failOverRedis: async () => {
      const client = sentinelClient();
      try {
        await client.call('SENTINEL', 'FAILOVER', redis.name);
      } finally {
        client.disconnect();
      }
    },
    redisPrimary: async () => {
      const client = sentinelClient();
      try {
        return (await client.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', redis.name)) as [string, string];
      } finally {
        client.disconnect();
      }
    },
    doctor: async (node) => {
      const host = hosts[nodes.indexOf(node)]!;
      const out = await run(
        'ip',
        ['netns', 'exec', host.namespace, process.execPath, 'bin/mailroom.js', 'doctor', '--json'],
        { env: { ...node.env, MAILROOM_FROM_SOURCE: '1' } },
      ).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
      return JSON.parse(out.stdout) as Array<{ check: string; status: string; detail: string }>;
    },
    request,
  });
}
