import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { postfixMasterCf } from '../postfix-master-cf.js';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../test/helpers/postfix-smtp-sink.js';
import { smtpSinkPath } from '../mta-sink.js';
import { waitForGreeting } from './greeting.js';
import { alive, stopGroup, treeCpuSeconds } from './process-tree.js';

const run = promisify(execFile);

/** Postfix cannot be run here; the message says why (the benchmark prints it and skips Postfix). */
export class PostfixUnavailable extends Error {}

type Account = { name: string; uid: number; gid: number };

function accounts(file: string): Array<{ name: string; id: number; gid: number }> {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const fields = line.split(':');
      return { name: fields[0]!, id: Number(fields[2]), gid: Number(fields[3]) };
    });
}

/**
 * The accounts Postfix's daemons run as. Its own (postfix, postdrop) when a system Postfix
 * created them; otherwise existing unprivileged ones, so nothing is added to /etc/passwd:
 * mail_owner must be a user of its own (not root, not default_privs' nobody) and
 * setgid_group a group that is neither its group nor nobody's (only postdrop would use it).
 */
function postfixAccounts(): { owner: Account; setgidGroup: string } {
  const users = accounts('/etc/passwd');
  const groups = accounts('/etc/group');
  const nobody = users.find((user) => user.name === 'nobody');
  const owner =
    users.find((user) => user.name === 'postfix') ??
    users.find((user) => user.name === 'mail' && user.id !== 0 && users.filter((u) => u.id === user.id).length === 1);
  if (!owner) throw new PostfixUnavailable('no postfix or mail account to run the daemons as');
  const group = ['postdrop', 'news', 'uucp', 'games', 'users']
    .map((name) => groups.find((g) => g.name === name))
    .find((g) => g && g.id !== 0 && g.id !== owner.gid && g.id !== nobody?.gid);
  if (!group) throw new PostfixUnavailable('no group for setgid_group');
  return { owner: { name: owner.name, uid: owner.id, gid: owner.gid }, setgidGroup: group.name };
}

/**
 * Postfix's smtpd accepting mail for one domain into its queue: the Debian package unpacked by
 * scripts/fetch-smtp-sink.sh (.cache/postfix, nothing installed), run as root with a config and
 * queue of its own under `dir`: master in the foreground (own process group), smtpd on a
 * loopback port, `mydestination` the domain, any local part, local delivery to `discard:`.
 * Otherwise Postfix's defaults: every queue file is fsynced by cleanup before smtpd says 250.
 */
export class PostfixSmtpd {
  readonly name = 'Postfix smtpd';
  readonly host = '127.0.0.1';
  readonly errors: string[] = [];

  private constructor(
    private readonly child: ChildProcess,
    readonly port: number,
    private readonly dir: string,
    readonly version: string,
    readonly owner: string,
  ) {}

  static async start(options: { dir: string; domain: string; concurrency: number }): Promise<PostfixSmtpd> {
    if (process.getuid?.() !== 0)
      throw new PostfixUnavailable(`Postfix's master must run as root; this process runs as uid ${process.getuid?.()}`);
    let root: string;
    try {
      root = resolve(dirname(smtpSinkPath()), '../..');
    } catch (err) {
      throw new PostfixUnavailable(`scripts/fetch-smtp-sink.sh failed: ${(err as Error).message.split('\n')[0]}`);
    }
    const sbin = join(root, 'usr/sbin');
    const daemons = join(root, 'usr/lib/postfix/sbin');
    const lib = join(root, 'usr/lib/postfix');
    for (const binary of [join(sbin, 'postfix'), join(daemons, 'master'), join(daemons, 'smtpd')])
      if (!existsSync(binary)) throw new PostfixUnavailable(`${binary} is missing from the unpacked package`);
    const { owner, setgidGroup } = postfixAccounts();

    const { dir } = options;
    const conf = join(dir, 'conf');
    mkdirSync(conf, { recursive: true });
    mkdirSync(join(dir, 'queue'));
    mkdirSync(join(dir, 'data'));
    // The daemons run as mail_owner: they must reach the queue, and own the data directory.
    for (const path of [dirname(dir), dir]) chmodSync(path, (statSync(path).mode & 0o7777) | 0o011);
    chownSync(join(dir, 'data'), owner.uid, owner.gid);
    const port = await freePort('127.0.0.1');
    writeFileSync(
      join(conf, 'main.cf'),
      [
        'compatibility_level = 3.6',
        `queue_directory = ${join(dir, 'queue')}`,
        `data_directory = ${join(dir, 'data')}`,
        `command_directory = ${sbin}`,
        `daemon_directory = ${daemons}`,
        `shlib_directory = ${lib}`,
        `meta_directory = ${join(root, 'etc/postfix')}`,
        // The unpacked libraries are not on the system's path: every daemon gets it.
        `import_environment = MAIL_CONFIG MAIL_DEBUG MAIL_LOGTAG TZ LANG=C LD_LIBRARY_PATH=${lib}`,
        `mail_owner = ${owner.name}`,
        `setgid_group = ${setgidGroup}`,
        'myhostname = postfix.bench.test',
        `mydestination = ${options.domain}`,
        'local_recipient_maps =',
        'alias_maps =',
        'alias_database =',
        'local_transport = discard:',
        `smtpd_client_connection_count_limit = ${Math.max(50, options.concurrency)}`,
        'inet_interfaces = loopback-only',
        'inet_protocols = ipv4',
        `maillog_file = ${join(dir, 'maillog')}`,
        `maillog_file_prefixes = ${dir}`,
        'biff = no',
        '',
      ].join('\n'),
    );
    writeFileSync(
      join(conf, 'master.cf'),
      postfixMasterCf({ smtpd: { port, processes: Math.max(100, options.concurrency) } }),
    );
    const env = { ...process.env, MAIL_CONFIG: conf, LD_LIBRARY_PATH: lib };
    const version = (
      await run(join(sbin, 'postconf'), ['-c', conf, '-h', 'mail_version'], { env }).catch(() => ({ stdout: '?' }))
    ).stdout.trim();
    try {
      // Creates the queue's directories with their owners and modes (postfix-script, post-install).
      await run(join(sbin, 'postfix'), ['-c', conf, 'check'], { env });
    } catch (err) {
      throw new PostfixUnavailable(`postfix check failed: ${(err as Error).message}; ${tail(join(dir, 'maillog'))}`);
    }
    // -d: master stays in the foreground, so it is our child and its group is ours to stop.
    const child = spawn(join(daemons, 'master'), ['-c', conf, '-d'], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
    });
    const postfix = new PostfixSmtpd(child, port, dir, version, `${owner.name}:${setgidGroup}`);
    child.stderr!.on('data', (chunk: Buffer) => {
      if (postfix.errors.length < 20) postfix.errors.push(chunk.toString('utf8').trim().slice(0, 500));
    });
    try {
      await waitForGreeting('127.0.0.1', port, 20_000, () => alive(child));
    } catch (err) {
      await stopGroup(child);
      throw new PostfixUnavailable(
        `Postfix's master did not serve SMTP: ${(err as Error).message}; ${postfix.errors.join(' ')} ${tail(join(dir, 'maillog'))}`,
      );
    }
    return postfix;
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** CPU seconds so far of master and every daemon it started (those that exited included). */
  cpu(): { total: number; parts: Record<string, number> } {
    const total = treeCpuSeconds(this.pid);
    return { total, parts: { postfix: total } };
  }

  /**
   * Resolves once qmgr has handed every accepted message to discard (nothing left in the
   * queues a message passes through); a message deferred instead is an error (a broken run).
   */
  async settle(timeoutMs = 120_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.queued(['incoming', 'active', 'maildrop', 'hold']) > 0) {
      if (Date.now() > deadline) throw new Error(`Postfix did not empty its queue within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const deferred = this.queued(['deferred']);
    if (deferred > 0) throw new Error(`Postfix deferred ${deferred} messages: ${tail(join(this.dir, 'maillog'))}`);
  }

  /** Files in these queue directories (hashed queues have subdirectories). */
  private queued(queues: string[]): number {
    const count = (path: string): number => {
      let entries: string[];
      try {
        entries = readdirSync(path);
      } catch {
        return 0;
      }
      return entries.reduce((sum, entry) => {
        const full = join(path, entry);
        try {
          return sum + (statSync(full).isDirectory() ? count(full) : 1);
        } catch {
          return sum; // moved on meanwhile
        }
      }, 0);
    };
    return queues.reduce((sum, queue) => sum + count(join(this.dir, 'queue', queue)), 0);
  }

  get running(): boolean {
    return alive(this.child);
  }

  async stop(): Promise<void> {
    await stopGroup(this.child);
  }
}

function tail(file: string): string {
  try {
    return readFileSync(file, 'utf8').trim().split('\n').slice(-5).join(' | ');
  } catch {
    return '(no log)';
  }
}
