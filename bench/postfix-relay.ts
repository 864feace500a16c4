import { execFile, spawn } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../test/helpers/postfix-smtp-sink.js';
import { ensurePostfix } from './postfix-install.js';
import { postfixMasterCf } from './postfix-master-cf.js';
import { injectOverSmtp } from './smtp-inject.js';

const run = promisify(execFile);

/** In hold mode an smtpd on a loopback port takes the injected messages; in maildrop mode pickup is only listed once the timing starts. */
const masterCf = (options: { pickup: boolean; smtpdPort: number | null }) =>
  postfixMasterCf({
    pickup: options.pickup,
    smtpd: options.smtpdPort ? { port: options.smtpdPort } : undefined,
    relay: true,
  });

/** One message as both MTAs get it: envelope and the same MIME bytes (Postfix's unsigned). */
export type BenchMessage = { from: string; to: string; mime: Buffer };

/**
 * How the messages wait in Postfix when the clock starts:
 * - `hold`: already through pickup and cleanup, in the hold queue; released with
 *   `postsuper -H ALL` + `postqueue -f` (Postfix's fastest path: only qmgr and smtp remain).
 * - `maildrop`: written by postdrop (fsynced) and not yet picked up; the pickup service is
 *   enabled by a reload, so pickup and cleanup (a second durable write) are inside the timing,
 *   as Mailroom's hand-over is on its side.
 */
export type PostfixMode = 'hold' | 'maildrop';

/**
 * main.cf: defaults except what makes it a relay to the sink: no local delivery, every message
 * to relayhost [sink]:port, from the same egress address Mailroom uses. Queue files are written
 * and fsynced as Postfix always does; no DKIM (Postfix has none built in).
 */
function mainCf(base: string, relay: { host: string; port: number }, egress: string, mode: PostfixMode): string {
  return [
    'compatibility_level = 3.6',
    `queue_directory = ${join(base, 'queue')}`,
    `data_directory = ${join(base, 'data')}`,
    'command_directory = /usr/sbin',
    'daemon_directory = /usr/lib/postfix/sbin',
    'shlib_directory = /usr/lib/postfix',
    'mail_owner = postfix',
    'setgid_group = postdrop',
    'myhostname = postfix.bench.test',
    'mydomain = bench.test',
    'mydestination =',
    'local_recipient_maps =',
    'alias_maps =',
    'alias_database =',
    'inet_interfaces = loopback-only',
    'inet_protocols = ipv4',
    `relayhost = [${relay.host}]:${relay.port}`,
    `smtp_bind_address = ${egress}`,
    `maillog_file = ${join(base, 'maillog')}`,
    `maillog_file_prefixes = ${base}`,
    'biff = no',
    ...(mode === 'hold' ? [`header_checks = regexp:${join(base, 'conf', 'hold-all')}`] : []),
    '',
  ].join('\n');
}

/** A Postfix instance of its own (config and queue under `base`), relaying to the sink. */
export class PostfixRelay {
  private readonly conf: string;
  private readonly env: NodeJS.ProcessEnv;

  private constructor(
    private readonly base: string,
    private readonly mode: PostfixMode,
    private readonly smtpdPort: number,
  ) {
    this.conf = join(base, 'conf');
    this.env = { ...process.env, MAIL_CONFIG: this.conf };
  }

  static async start(
    base: string,
    relay: { host: string; port: number },
    egress: string,
    mode: PostfixMode,
  ): Promise<PostfixRelay> {
    ensurePostfix();
    const instance = new PostfixRelay(base, mode, await freePort('127.0.0.1'));
    mkdirSync(instance.conf, { recursive: true });
    // Postfix's daemons run as the postfix user: they must be able to reach the queue.
    chmodSync(base, 0o755);
    mkdirSync(join(base, 'queue'), { recursive: true });
    mkdirSync(join(base, 'data'), { recursive: true });
    chownSync(join(base, 'data'), postfixUid(), -1);
    writeFileSync(join(instance.conf, 'main.cf'), mainCf(base, relay, egress, mode));
    writeFileSync(join(instance.conf, 'master.cf'), masterCf(instance.services(mode === 'hold')));
    // Every message has a Subject: all of them go on hold after cleanup.
    writeFileSync(join(instance.conf, 'hold-all'), '/^Subject:/ HOLD\n');
    await instance.postfix('check'); // creates the queue directories with their owners and modes
    await instance.postfix('start');
    return instance;
  }

  /**
   * Queues the messages (not timed). Hold mode: over SMTP to the instance's smtpd, then
   * cleanup puts each on hold. Maildrop mode: sendmail (postdrop) processes, `parallel` at a time.
   */
  async inject(messages: BenchMessage[], parallel = 8): Promise<void> {
    if (this.mode === 'hold') {
      await injectOverSmtp('127.0.0.1', this.smtpdPort, messages, parallel);
      await this.waitUntil(() => this.count('hold') >= messages.length, 'every message on hold');
      return;
    }
    let next = 0;
    const one = async (): Promise<void> => {
      while (next < messages.length) {
        const message = messages[next++]!;
        await this.sendmail(message);
      }
    };
    await Promise.all(Array.from({ length: parallel }, one));
    await this.waitUntil(() => this.count('maildrop') >= messages.length, 'every message in the maildrop');
  }

  /** Starts delivery of everything queued (the start of Postfix's timing). */
  async release(): Promise<void> {
    if (this.mode === 'hold') {
      await run('/usr/sbin/postsuper', ['-c', this.conf, '-H', 'ALL'], { env: this.env });
      await run('/usr/sbin/postqueue', ['-c', this.conf, '-f'], { env: this.env });
      return;
    }
    writeFileSync(join(this.conf, 'master.cf'), masterCf(this.services(true)));
    await this.postfix('reload');
  }

  /** Resolves once no message is left in the incoming, active or deferred queue (or hold, maildrop). */
  async waitEmpty(timeoutMs = 120_000): Promise<void> {
    await this.waitUntil(
      () => ['maildrop', 'incoming', 'active', 'deferred', 'hold'].every((queue) => this.count(queue) === 0),
      'an empty queue',
      timeoutMs,
    );
  }

  private services(pickup: boolean) {
    return { pickup, smtpdPort: this.mode === 'hold' ? this.smtpdPort : null };
  }

  async stop(): Promise<void> {
    await this.postfix('stop').catch(() => this.postfix('abort'));
    rmSync(this.base, { recursive: true, force: true });
  }

  private async postfix(command: string): Promise<void> {
    try {
      await run('/usr/sbin/postfix', ['-c', this.conf, command], { env: this.env });
    } catch (err) {
      // Without a terminal Postfix says why only in its log.
      throw new Error(
        `postfix ${command} failed; see ${join(this.base, 'maillog')} (or run it on a terminal): ${(err as Error).message}`,
      );
    }
  }

  private sendmail(message: BenchMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn('/usr/sbin/sendmail', ['-i', '-f', message.from, '--', message.to], {
        env: this.env,
        stdio: ['pipe', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.once('error', reject);
      child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`sendmail exited ${code}: ${stderr}`))));
      child.stdin!.end(message.mime);
    });
  }

  /** Files in one queue directory (hashed queues have one level of subdirectories). */
  private count(queue: string): number {
    const walk = (dir: string): number => {
      let n = 0;
      for (const entry of safeReaddir(dir)) {
        const path = join(dir, entry);
        n += safeIsDirectory(path) ? walk(path) : 1;
      }
      return n;
    };
    return walk(join(this.base, 'queue', queue));
  }

  private async waitUntil(done: () => boolean, what: string, timeoutMs = 120_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!done()) {
      if (Date.now() > deadline) throw new Error(`postfix: timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

function postfixUid(): number {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('postfix:'));
  if (!line) throw new Error('no postfix user in /etc/passwd');
  return Number(line.split(':')[2]);
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function safeIsDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
