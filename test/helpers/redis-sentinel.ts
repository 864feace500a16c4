import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';
import { Redis } from 'ioredis';

const HOST = '127.0.0.1';
const REDIS_MISSING = 'redis-server is not installed (apt-get install redis-server redis-sentinel)';

/** Every process a group started, so a crashed test file still leaves none behind. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/**
 * Whether the tests can run here. Without redis-server the file is skipped with the reason
 * (plan 0) on a developer's machine; on CI (CI set) it fails, so no runner passes it silently.
 */
export function redisServerOrSkip(t: Test): boolean {
  if (spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0) return true;
  if (process.env.CI) {
    t.fail(REDIS_MISSING);
    t.end();
  } else {
    t.plan(0, REDIS_MISSING);
  }
  return false;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, HOST, () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` every 100 ms until it returns a value other than undefined (errors count as not yet). */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}${lastError ? ` (last error: ${String(lastError)})` : ''}`);
    await sleep(100);
  }
}

/** One redis-server or sentinel of the group, in the foreground so the test owns it. */
type Member = { port: number; child: ChildProcess };

function spawnMember(config: string, port: number, sentinel: boolean): Member {
  const child = spawn('redis-server', sentinel ? [config, '--sentinel'] : [config], { stdio: 'ignore' });
  running.add(child);
  child.once('exit', () => running.delete(child));
  return { port, child };
}

async function stopMember(member: Member): Promise<void> {
  const { child } = member;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGKILL');
  await exited;
}

export type SentinelGroup = {
  /** The Sentinel group (`sentinel monitor <name> ...`), for redis.name. */
  name: string;
  /** requirepass and masterauth of both servers, the sentinel's auth-pass: for redis.password. */
  password: string;
  sentinelPort: number;
  /** redis.sentinels, as the configuration takes it. */
  sentinels: string[];
  /** The port of the server started as primary, and of the one started as its replica. */
  initialPrimary: number;
  initialReplica: number;
  /** What the sentinel names as primary right now. */
  primaryPort(): Promise<number>;
  /** A client straight to one server (with the password), closed by stop(). */
  direct(port: number): Redis;
  /** The server's own answer to ROLE: 'master' or 'slave'. */
  role(port: number): Promise<string>;
  /** SENTINEL FAILOVER <name> on the sentinel: a planned failover, no agreement needed. */
  failover(): Promise<unknown>;
  /** kill -9 of one server: an unplanned failover once down-after-milliseconds has passed. */
  kill(port: number): Promise<void>;
  /** Until the sentinel names `port` as primary and that server says ROLE master. */
  waitForPrimary(port: number): Promise<void>;
  /** Until the sentinel sees `port` as a replica whose link to the primary is up. */
  waitForReplica(port: number): Promise<void>;
  /** Kills every process of the group and removes its directory. */
  stop(): Promise<void>;
};

/**
 * A primary, its replica and one sentinel (quorum 1, down-after 1 s, failover-timeout 5 s) on
 * free loopback ports, in a directory of their own, nothing kept on disk between runs.
 */
export async function startSentinelGroup(options: { name?: string; password?: string } = {}): Promise<SentinelGroup> {
  const name = options.name ?? 'mailroom-test';
  const password = options.password ?? `pw-${Math.random().toString(36).slice(2, 10)}`;
  const dir = mkdtempSync(join(tmpdir(), 'mailroom-sentinel-'));
  const members: Member[] = [];
  const clients: Redis[] = [];
  const [primaryPort, replicaPort, sentinelPort] = [await freePort(), await freePort(), await freePort()];

  const serverConfig = (port: number, replicaOf?: number) => {
    const file = join(dir, `redis-${port}.conf`);
    writeFileSync(
      file,
      [
        `port ${port}`,
        `bind ${HOST}`,
        `dir ${dir}`,
        `dbfilename dump-${port}.rdb`,
        `logfile ${join(dir, `redis-${port}.log`)}`,
        'daemonize no',
        'save ""',
        'appendonly no',
        `requirepass ${password}`,
        // A demoted primary has to authenticate to the new one.
        `masterauth ${password}`,
        // Full syncs at once, not after the 5 s a diskless sync waits for more replicas.
        'repl-diskless-sync-delay 0',
        ...(replicaOf ? [`replicaof ${HOST} ${replicaOf}`] : []),
        '',
      ].join('\n'),
    );
    return file;
  };

  const direct = (port: number) => {
    const client = new Redis({
      host: HOST,
      port,
      password,
      maxRetriesPerRequest: 1,
      connectTimeout: 1000,
      retryStrategy: (times) => Math.min(times * 100, 500),
    });
    client.on('error', () => undefined);
    clients.push(client);
    return client;
  };
  const sentinel = new Redis({
    host: HOST,
    port: sentinelPort,
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    retryStrategy: (times) => Math.min(times * 100, 500),
  });
  sentinel.on('error', () => undefined);
  clients.push(sentinel);

  const role = async (port: number) => {
    const client = direct(port);
    clients.pop();
    try {
      return String(((await client.call('ROLE')) as unknown[])[0]);
    } finally {
      client.disconnect();
    }
  };
  const fields = (flat: unknown[]): Record<string, string> => {
    const out: Record<string, string> = {};
    for (let i = 0; i + 1 < flat.length; i += 2) out[String(flat[i])] = String(flat[i + 1]);
    return out;
  };

  const group: SentinelGroup = {
    name,
    password,
    sentinelPort,
    sentinels: [`${HOST}:${sentinelPort}`],
    initialPrimary: primaryPort,
    initialReplica: replicaPort,
    async primaryPort() {
      const [, port] = (await sentinel.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', name)) as [string, string];
      return Number(port);
    },
    direct,
    role,
    failover: () => sentinel.call('SENTINEL', 'FAILOVER', name),
    async kill(port) {
      const member = members.find((m) => m.port === port);
      if (!member) throw new Error(`no server on port ${port}`);
      await stopMember(member);
    },
    async waitForPrimary(port) {
      await waitFor(`the sentinel to name ${port} as primary`, async () =>
        (await group.primaryPort()) === port && (await role(port)) === 'master' ? true : undefined,
      );
    },
    async waitForReplica(port) {
      await waitFor(`the sentinel to see ${port} as a replica with its link up`, async () => {
        const replicas = ((await sentinel.call('SENTINEL', 'REPLICAS', name)) as unknown[][]).map(fields);
        const replica = replicas.find((r) => Number(r.port) === port);
        return replica?.flags === 'slave' && replica['master-link-status'] === 'ok' ? true : undefined;
      });
    },
    async stop() {
      for (const client of clients) client.disconnect();
      await Promise.all(members.map(stopMember));
      rmSync(dir, { recursive: true, force: true });
    },
  };

  try {
    members.push(spawnMember(serverConfig(primaryPort), primaryPort, false));
    await waitFor('the primary to answer', async () => ((await role(primaryPort)) === 'master' ? true : undefined));
    members.push(spawnMember(serverConfig(replicaPort, primaryPort), replicaPort, false));
    const replica = direct(replicaPort);
    await waitFor('the replica to finish its first sync', async () => {
      const info = await replica.info('replication');
      return /master_link_status:up/.test(info) ? true : undefined;
    });

    // Sentinel rewrites its file as it learns the group: a file of its own, writable.
    const sentinelFile = join(dir, 'sentinel.conf');
    writeFileSync(
      sentinelFile,
      [
        `port ${sentinelPort}`,
        `bind ${HOST}`,
        `dir ${dir}`,
        `logfile ${join(dir, 'sentinel.log')}`,
        'daemonize no',
        `sentinel monitor ${name} ${HOST} ${primaryPort} 1`,
        `sentinel auth-pass ${name} ${password}`,
        `sentinel down-after-milliseconds ${name} 1000`,
        `sentinel failover-timeout ${name} 5000`,
        `sentinel parallel-syncs ${name} 1`,
        '',
      ].join('\n'),
    );
    members.push(spawnMember(sentinelFile, sentinelPort, true));
    await waitFor('the sentinel to answer', async () => ((await sentinel.ping()) === 'PONG' ? true : undefined));
    await group.waitForPrimary(primaryPort);
    await group.waitForReplica(replicaPort);
  } catch (err) {
    await group.stop();
    throw err;
  }
  return group;
}
