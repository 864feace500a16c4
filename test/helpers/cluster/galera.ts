import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Debian's Galera 4 provider (package galera-4). */
export const GALERA_PROVIDER = '/usr/lib/galera/libgalera_smm.so';

/** Why a Galera cluster cannot start here, or null. */
export function galeraUnavailable(): string | null {
  if (!existsSync(GALERA_PROVIDER)) return `no Galera provider at ${GALERA_PROVIDER} (apt-get install galera-4 rsync)`;
  if (!existsSync('/usr/sbin/mariadbd')) return 'no mariadbd (apt-get install mariadb-server)';
  if (!existsSync('/usr/bin/rsync')) return 'no rsync for the state transfer (apt-get install rsync)';
  return null;
}

/**
 * One `mariadbd` of a test cluster, configured by the option files the Ansible roles render
 * (`includes`: the Galera settings and Mailroom's [mysqld] settings, with this member's address
 * and ports) plus what only a test on one machine sets: its own data directory, socket and log,
 * running as root, and a small buffer pool (three members share this machine).
 */
export class GaleraMember {
  private child: ChildProcess | undefined;
  readonly dir: string;
  readonly socket: string;
  readonly log: string;
  private readonly defaultsFile: string;

  constructor(
    readonly name: string,
    baseDir: string,
    includes: string[],
  ) {
    this.dir = join(baseDir, name);
    const dataDir = join(this.dir, 'data');
    mkdirSync(dataDir, { recursive: true });
    // The joiner's rsync daemon (wsrep_sst_rsync) writes as nobody when run by root.
    chmodSync(this.dir, 0o755);
    chmodSync(dataDir, 0o777);
    this.socket = join(this.dir, 'mysqld.sock');
    this.log = join(this.dir, 'error.log');
    this.defaultsFile = join(this.dir, 'my.cnf');
    writeFileSync(
      this.defaultsFile,
      [
        ...includes.map((file) => `!include ${file}`),
        '[mysqld]',
        `datadir=${dataDir}`,
        `socket=${this.socket}`,
        `pid-file=${join(this.dir, 'mysqld.pid')}`,
        `log-error=${this.log}`,
        'user=root',
        'innodb_buffer_pool_size=64M',
        'innodb_log_file_size=48M',
        'skip-name-resolve',
        'max_connections=300',
        '',
      ].join('\n'),
    );
  }

  /** Creates the system tables: the first member only (the others receive a copy). */
  async install(): Promise<void> {
    await run('mariadb-install-db', [`--defaults-file=${this.defaultsFile}`, '--user=root', '--skip-test-db']);
  }

  /** Starts it (`bootstrap`: a new cluster of one) and resolves once it is synced with the cluster. */
  async start(bootstrap = false): Promise<void> {
    this.child = spawn(
      '/usr/sbin/mariadbd',
      [`--defaults-file=${this.defaultsFile}`, ...(bootstrap ? ['--wsrep-new-cluster'] : [])],
      { stdio: 'ignore' },
    );
    const child = this.child;
    const deadline = Date.now() + 120_000;
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`Galera member ${this.name} exited (${child.exitCode ?? child.signalCode}); see ${this.log}`);
      if ((await this.status('wsrep_local_state_comment').catch(() => null)) === 'Synced') return;
      if (Date.now() > deadline) throw new Error(`Galera member ${this.name} did not sync; see ${this.log}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  /** A clean shutdown (SIGTERM), as `systemctl stop mariadb` does. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill(signal);
    });
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** A global status variable, read through the member's socket. */
  async status(name: string): Promise<string | null> {
    const out = await this.sql(`SHOW GLOBAL STATUS LIKE '${name}'`);
    return out.split('\t')[1]?.trim() ?? null;
  }

  /** Runs SQL as root through the socket; the rows as tab-separated text. */
  async sql(statement: string): Promise<string> {
    const { stdout } = await run('mariadb', [
      '-S',
      this.socket,
      '-uroot',
      '--batch',
      '--skip-column-names',
      '-e',
      statement,
    ]);
    return stdout;
  }
}

/** Starts the members: the first bootstraps a new cluster, the others join it (state transfer). */
export async function startGaleraCluster(members: GaleraMember[]): Promise<void> {
  const [first, ...rest] = members;
  await first!.install();
  await first!.start(true);
  // One joiner at a time: each takes a full state transfer from a donor.
  for (const member of rest) await member.start();
}
