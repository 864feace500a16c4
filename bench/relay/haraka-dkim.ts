import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createRequire } from 'node:module';
import { harakaBin } from '../../inbound/haraka-process.js';
import { freePort } from '../../test/helpers/postfix-smtp-sink.js';
import { waitForGreeting } from '../inbound/greeting.js';
import { alive, stopGroup, treeCpuSeconds } from '../inbound/process-tree.js';
import { HARAKA_VERSION } from '../inbound/stock-haraka.js';
import { PeerUnavailable } from './postfix-opendkim.js';

const require = createRequire(import.meta.url);

/** The installed haraka-plugin-dkim's version, or null when it is not installed. */
export function dkimPluginVersion(): string | null {
  try {
    return (require('haraka-plugin-dkim/package.json') as { version: string }).version;
  } catch {
    return null;
  }
}

export { HARAKA_VERSION };

/**
 * Every outbound delivery to the sink (the verification domain's to the capture server): the
 * route a smarthost gives, through outbound's get_mx hook.
 */
const routePlugin = (
  sink: { host: string; port: number },
  verify: { domain: string; host: string; port: number },
) => `'use strict'
exports.hook_get_mx = function (next, hmail, domain) {
  if (domain === ${JSON.stringify(verify.domain)})
    return next(OK, { exchange: ${JSON.stringify(verify.host)}, port: ${verify.port}, priority: 10 })
  next(OK, { exchange: ${JSON.stringify(sink.host)}, port: ${sink.port}, priority: 10 })
}
`;

export type HarakaDkimOptions = {
  dir: string;
  sink: { host: string; port: number };
  verify: { domain: string; host: string; port: number };
  domain: string;
  selector: string;
  privateKeyPem: string;
};

/**
 * Haraka outbound with its DKIM plugin: a fresh `haraka -i` installation of the same Haraka
 * package our MX runs, one process (nodes=0) on a loopback port; plugins `relay` (ACL:
 * 127.0.0.1 relays, no AUTH), `dkim` (haraka-plugin-dkim, signing bench.test with an RSA-2048
 * key, verification off) and a 5-line get_mx hook that routes every domain to the sink; the
 * message goes to outbound's queue (a file per message, as Haraka queues outbound mail) and is
 * delivered from there. outbound.ini: local_mx_ok (the sink is on loopback), enable_tls off (the
 * sink has none). Log level notice.
 */
export class HarakaDkim {
  readonly name = 'Haraka+DKIM';
  readonly host = '127.0.0.1';
  readonly errors: string[] = [];

  private constructor(
    private readonly child: ChildProcess,
    readonly port: number,
  ) {}

  static async start(options: HarakaDkimOptions): Promise<HarakaDkim> {
    if (!dkimPluginVersion())
      throw new PeerUnavailable('haraka-plugin-dkim is not installed (npm install --save-dev haraka-plugin-dkim)');
    execFileSync(process.execPath, [harakaBin(), '-i', options.dir], { stdio: 'ignore' });
    const config = join(options.dir, 'config');
    const port = await freePort('127.0.0.1');
    const write = (file: string, text: string) => writeFileSync(join(config, file), text);
    write('smtp.ini', `[main]\nlisten=127.0.0.1:${port}\nnodes=0\n`);
    write('plugins', 'relay\ndkim\nbench_route\n');
    write('relay.ini', '[relay]\nacl=true\n');
    write('relay_acl_allow', '127.0.0.1/32\n');
    write(
      'dkim.ini',
      [
        '[sign]',
        'enabled=true',
        `selector=${options.selector}`,
        `domain=${options.domain}`,
        'headers=From, Sender, Reply-To, Subject, Date, Message-ID, To, Cc, MIME-Version, Content-Type, Content-Transfer-Encoding, List-Unsubscribe, List-Unsubscribe-Post',
        '',
        '[verify]',
        'enabled=false',
        '',
      ].join('\n'),
    );
    write('dkim.private.key', options.privateKeyPem);
    write('outbound.ini', 'local_mx_ok=true\nenable_tls=false\n');
    write('log.ini', '[main]\nlevel=notice\ntimestamps=false\nformat=default\n');
    write('me', 'haraka.bench.test\n');
    mkdirSync(join(options.dir, 'plugins'), { recursive: true });
    writeFileSync(join(options.dir, 'plugins', 'bench_route.js'), routePlugin(options.sink, options.verify));
    const child = spawn(process.execPath, [harakaBin(), '-c', options.dir], {
      cwd: options.dir,
      env: { ...process.env, HARAKA: options.dir },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const haraka = new HarakaDkim(child, port);
    for (const stream of [child.stdout!, child.stderr!])
      createInterface({ input: stream }).on('line', (line) => {
        if (/\[(ERROR|CRIT|EMERG|ALERT)\]/.test(line) && !/tls (key|cert) .* could not be loaded/.test(line))
          if (haraka.errors.length < 20) haraka.errors.push(line.slice(0, 500));
      });
    try {
      await waitForGreeting('127.0.0.1', port, 30_000, () => alive(child));
      return haraka;
    } catch (err) {
      await stopGroup(child);
      throw new PeerUnavailable(`Haraka did not start: ${(err as Error).message}; ${haraka.errors.join('\n')}`);
    }
  }

  get pids(): number[] {
    return [this.child.pid!];
  }

  cpu(): Record<string, number> {
    return { haraka: treeCpuSeconds(this.child.pid!) };
  }

  get running(): boolean {
    return alive(this.child);
  }

  async stop(): Promise<void> {
    await stopGroup(this.child);
  }
}
