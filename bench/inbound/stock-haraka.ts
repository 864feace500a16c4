import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { harakaBin } from '../../inbound/haraka-process.js';
import { freePort } from '../../test/helpers/postfix-smtp-sink.js';
import { alive, stopGroup, treeCpuSeconds } from './process-tree.js';
import { waitForGreeting } from './greeting.js';

const require = createRequire(import.meta.url);

export const HARAKA_VERSION = (require('Haraka/package.json') as { version: string }).version;

/**
 * Stock Haraka (the same installed package our MX runs) accepting and discarding: a fresh
 * installation (`haraka -i`) whose plugins are only `rcpt_to.in_host_list` (the domain in
 * config/host_list) and `queue/discard`, one process (nodes=0) on a loopback port, log level
 * notice as our MX's Haraka has. Nothing is written anywhere: the upper bound of what Haraka
 * itself can accept on this machine.
 */
export class StockHaraka {
  readonly name = 'stock Haraka, discard';
  readonly host = '127.0.0.1';
  readonly errors: string[] = [];

  private constructor(
    private readonly child: ChildProcess,
    readonly port: number,
  ) {}

  static async start(options: { dir: string; domain: string }): Promise<StockHaraka> {
    execFileSync(process.execPath, [harakaBin(), '-i', options.dir], { stdio: 'ignore' });
    const config = join(options.dir, 'config');
    const port = await freePort('127.0.0.1');
    writeFileSync(join(config, 'smtp.ini'), `[main]\nlisten=127.0.0.1:${port}\nnodes=0\n`);
    writeFileSync(join(config, 'plugins'), 'rcpt_to.in_host_list\nqueue/discard\n');
    writeFileSync(join(config, 'host_list'), `${options.domain}\n`);
    writeFileSync(join(config, 'log.ini'), '[main]\nlevel=notice\ntimestamps=false\nformat=default\n');
    writeFileSync(join(config, 'me'), 'stock-haraka.bench.test\n');
    const child = spawn(process.execPath, [harakaBin(), '-c', options.dir], {
      // queue/discard only discards when told to: for every message, by this variable.
      env: { ...process.env, YES_REALLY_DO_DISCARD: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const haraka = new StockHaraka(child, port);
    for (const stream of [child.stdout!, child.stderr!])
      createInterface({ input: stream }).on('line', (line) => {
        if (/^\[(ERROR|CRIT|EMERG|ALERT)\]/.test(line) && !/tls (key|cert) .* could not be loaded/.test(line))
          if (haraka.errors.length < 20) haraka.errors.push(line.slice(0, 500));
      });
    try {
      await waitForGreeting('127.0.0.1', port, 30_000, () => alive(child));
      return haraka;
    } catch (err) {
      await stopGroup(child);
      throw new Error(`stock Haraka did not start: ${(err as Error).message}; ${haraka.errors.join('\n')}`);
    }
  }

  get pid(): number {
    return this.child.pid!;
  }

  cpu(): { total: number; parts: Record<string, number> } {
    const total = treeCpuSeconds(this.pid);
    return { total, parts: { haraka: total } };
  }

  async settle(): Promise<void> {}

  get running(): boolean {
    return alive(this.child);
  }

  async stop(): Promise<void> {
    await stopGroup(this.child);
  }
}
