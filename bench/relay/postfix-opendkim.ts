import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../test/helpers/postfix-smtp-sink.js';
import { waitForGreeting } from '../inbound/greeting.js';
import { alive, stopGroup, treeCpuSeconds } from '../inbound/process-tree.js';
import { smtpSinkPath } from '../mta-sink.js';
import { postfixMasterCf } from '../postfix-master-cf.js';
import { waitListening } from './listening.js';

const run = promisify(execFile);

/** A peer that cannot run here; the message says why (the benchmark prints it and skips the peer). */
export class PeerUnavailable extends Error {}

export const OPENDKIM = '/usr/sbin/opendkim';

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

/** As bench/inbound/postfix-smtpd.ts: postfix's own accounts, else existing unprivileged ones. */
function postfixAccounts(): { owner: Account; setgidGroup: string } {
  const users = accounts('/etc/passwd');
  const groups = accounts('/etc/group');
  const nobody = users.find((user) => user.name === 'nobody');
  const owner =
    users.find((user) => user.name === 'postfix') ??
    users.find((user) => user.name === 'mail' && user.id !== 0 && users.filter((u) => u.id === user.id).length === 1);
  if (!owner) throw new PeerUnavailable('no postfix or mail account to run the daemons as');
  const group = ['postdrop', 'news', 'uucp', 'games', 'users']
    .map((name) => groups.find((g) => g.name === name))
    .find((g) => g && g.id !== 0 && g.id !== owner.gid && g.id !== nobody?.gid);
  if (!group) throw new PeerUnavailable('no group for setgid_group');
  return { owner: { name: owner.name, uid: owner.id, gid: owner.gid }, setgidGroup: group.name };
}

export type PostfixOpendkimOptions = {
  dir: string;
  sink: { host: string; port: number };
  /** Where mail for the verification domain goes instead of the sink (the signing check). */
  verify: { domain: string; host: string; port: number };
  egress: string;
  domain: string;
  selector: string;
  privateKeyPem: string;
  sessions: number;
};

/**
 * Postfix with OpenDKIM as its milter: Postfix from the Debian package unpacked in
 * .cache/postfix (scripts/fetch-smtp-sink.sh; master as root, daemons as the postfix/mail
 * account), an smtpd on a loopback port relaying for mynetworks (127.0.0.0/8, no AUTH), every
 * message to relayhost [sink]:port; smtpd_milters and non_smtpd_milters = OpenDKIM (Debian's
 * `opendkim` package) on a loopback inet socket, signing mode for bench.test with an RSA-2048
 * key (relaxed/simple, rsa-sha256). Otherwise the defaults of both (queue files fsynced by cleanup
 * before the 250).
 */
export class PostfixOpendkim {
  readonly name = 'Postfix+OpenDKIM';
  readonly host = '127.0.0.1';
  readonly errors: string[] = [];

  private constructor(
    private readonly master: ChildProcess,
    private readonly opendkim: ChildProcess,
    readonly port: number,
    readonly version: string,
    readonly opendkimVersion: string,
  ) {}

  static async start(options: PostfixOpendkimOptions): Promise<PostfixOpendkim> {
    if (process.getuid?.() !== 0)
      throw new PeerUnavailable(`Postfix's master must run as root; this process runs as uid ${process.getuid?.()}`);
    if (!existsSync(OPENDKIM))
      throw new PeerUnavailable(`${OPENDKIM} is missing (install Debian's opendkim: apt-get install -y opendkim)`);
    let root: string;
    try {
      root = resolve(dirname(smtpSinkPath()), '../..');
    } catch (err) {
      throw new PeerUnavailable(`scripts/fetch-smtp-sink.sh failed: ${(err as Error).message.split('\n')[0]}`);
    }
    const sbin = join(root, 'usr/sbin');
    const daemons = join(root, 'usr/lib/postfix/sbin');
    const lib = join(root, 'usr/lib/postfix');
    for (const binary of [
      join(sbin, 'postfix'),
      join(daemons, 'master'),
      join(daemons, 'smtpd'),
      join(daemons, 'smtp'),
    ])
      if (!existsSync(binary)) throw new PeerUnavailable(`${binary} is missing from the unpacked package`);
    const { owner, setgidGroup } = postfixAccounts();

    const { dir } = options;
    const conf = join(dir, 'conf');
    mkdirSync(conf, { recursive: true });
    mkdirSync(join(dir, 'queue'));
    mkdirSync(join(dir, 'data'));
    for (const path of [dirname(dir), dir]) chmodSync(path, (statSync(path).mode & 0o7777) | 0o011);
    chownSync(join(dir, 'data'), owner.uid, owner.gid);

    // OpenDKIM first: Postfix tempfails every message while its milter is not there.
    const keyFile = join(dir, 'dkim.private');
    writeFileSync(keyFile, options.privateKeyPem, { mode: 0o600 });
    const milterPort = await freePort('127.0.0.1');
    const opendkimConf = join(dir, 'opendkim.conf');
    writeFileSync(
      opendkimConf,
      [
        'Syslog no',
        'Background no',
        'Mode s',
        `Domain ${options.domain}`,
        `Selector ${options.selector}`,
        `KeyFile ${keyFile}`,
        'Canonicalization relaxed/simple',
        'SignatureAlgorithm rsa-sha256',
        'InternalHosts 127.0.0.0/8',
        'RequireSafeKeys false',
        `Socket inet:${milterPort}@127.0.0.1`,
        `PidFile ${join(dir, 'opendkim.pid')}`,
        '',
      ].join('\n'),
    );
    const opendkimVersion = await run(OPENDKIM, ['-V'])
      .then(({ stdout }) => stdout.split('\n')[0]!.trim())
      .catch(() => 'OpenDKIM');
    const opendkim = spawn(OPENDKIM, ['-f', '-x', opendkimConf], {
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
    });
    const errors: string[] = [];
    opendkim.stderr!.on('data', (chunk: Buffer) => {
      if (errors.length < 20) errors.push(`opendkim: ${chunk.toString('utf8').trim().slice(0, 500)}`);
    });
    try {
      await waitListening('127.0.0.1', milterPort, 20_000, () => alive(opendkim));
    } catch (err) {
      await stopGroup(opendkim);
      throw new PeerUnavailable(`OpenDKIM did not listen: ${(err as Error).message}; ${errors.join(' ')}`);
    }

    const port = await freePort('127.0.0.1');
    const milter = `inet:127.0.0.1:${milterPort}`;
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
        `import_environment = MAIL_CONFIG MAIL_DEBUG MAIL_LOGTAG TZ LANG=C LD_LIBRARY_PATH=${lib}`,
        `mail_owner = ${owner.name}`,
        `setgid_group = ${setgidGroup}`,
        'myhostname = postfix.bench.test',
        'mydomain = bench.test',
        'mydestination =',
        'local_recipient_maps =',
        'alias_maps =',
        'alias_database =',
        'mynetworks = 127.0.0.0/8',
        `relayhost = [${options.sink.host}]:${options.sink.port}`,
        `transport_maps = texthash:${join(conf, 'transport')}`,
        `smtp_bind_address = ${options.egress}`,
        `smtpd_milters = ${milter}`,
        `non_smtpd_milters = ${milter}`,
        'milter_default_action = tempfail',
        `smtpd_client_connection_count_limit = ${Math.max(50, options.sessions)}`,
        'inet_interfaces = loopback-only',
        'inet_protocols = ipv4',
        `maillog_file = ${join(dir, 'maillog')}`,
        `maillog_file_prefixes = ${dir}`,
        'biff = no',
        '',
      ].join('\n'),
    );
    writeFileSync(
      join(conf, 'transport'),
      `${options.verify.domain} smtp:[${options.verify.host}]:${options.verify.port}\n`,
      { mode: 0o644 },
    );
    writeFileSync(
      join(conf, 'master.cf'),
      postfixMasterCf({ smtpd: { port, processes: Math.max(100, options.sessions) }, relay: true }),
    );
    const env = { ...process.env, MAIL_CONFIG: conf, LD_LIBRARY_PATH: lib };
    const version = (
      await run(join(sbin, 'postconf'), ['-c', conf, '-h', 'mail_version'], { env }).catch(() => ({ stdout: '?' }))
    ).stdout.trim();
    try {
      await run(join(sbin, 'postfix'), ['-c', conf, 'check'], { env });
    } catch (err) {
      await stopGroup(opendkim);
      throw new PeerUnavailable(`postfix check failed: ${(err as Error).message}; ${tail(join(dir, 'maillog'))}`);
    }
    const master = spawn(join(daemons, 'master'), ['-c', conf, '-d'], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
    });
    const peer = new PostfixOpendkim(master, opendkim, port, version, opendkimVersion);
    peer.errors.push(...errors);
    master.stderr!.on('data', (chunk: Buffer) => {
      if (peer.errors.length < 20) peer.errors.push(`master: ${chunk.toString('utf8').trim().slice(0, 500)}`);
    });
    try {
      await waitForGreeting('127.0.0.1', port, 20_000, () => alive(master));
    } catch (err) {
      await peer.stop();
      throw new PeerUnavailable(
        `Postfix's master did not serve SMTP: ${(err as Error).message}; ${peer.errors.join(' ')} ${tail(join(dir, 'maillog'))}`,
      );
    }
    peer.log = join(dir, 'maillog');
    return peer;
  }

  private log = '';

  /** The last lines of Postfix's log (for a failed run). */
  logTail(): string {
    return tail(this.log);
  }

  get pids(): number[] {
    return [this.master.pid!, this.opendkim.pid!];
  }

  /** CPU seconds so far: master with every daemon it started (reaped ones included), and OpenDKIM. */
  cpu(): Record<string, number> {
    return { postfix: treeCpuSeconds(this.master.pid!), opendkim: treeCpuSeconds(this.opendkim.pid!) };
  }

  get running(): boolean {
    return alive(this.master) && alive(this.opendkim);
  }

  async stop(): Promise<void> {
    await stopGroup(this.master);
    await stopGroup(this.opendkim);
  }
}

function tail(file: string): string {
  try {
    return readFileSync(file, 'utf8').trim().split('\n').slice(-5).join(' | ');
  } catch {
    return '(no log)';
  }
}
