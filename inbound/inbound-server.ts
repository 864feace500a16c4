import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Runtime } from '../app/runtime.js';
import type { Config } from '../lib/config/config.schema.js';
import { ConfigError } from '../lib/errors.js';
import { isProcessAlive } from '../lib/process-alive.js';
import { writeHarakaDirectory } from './haraka-config.js';
import { HarakaProcess } from './haraka-process.js';
import { startInboundBridge } from './inbound-bridge.js';

export type InboundServer = { port: number; harakaPid: number | undefined; close(): Promise<void> };

/** Longest Unix socket path Linux takes (sun_path is 108 bytes with its NUL). */
const MAX_SOCKET_PATH = 107;

/** The MX port in effect: configured, or 25 in production and 2525 elsewhere; 0 picks a free one. */
async function mxPort(config: Config): Promise<number> {
  const configured = config.inbound.port ?? (config.env === 'production' ? 25 : 2525);
  if (configured !== 0) return configured;
  return new Promise((done, fail) => {
    const probe = createServer();
    probe.once('error', fail);
    probe.listen(0, config.inbound.host, () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => done(port));
    });
  });
}

/** Whether `pid` is a Haraka started for this directory (not an unrelated process that reused the pid). */
function isOurHaraka(pid: number, dir: string): boolean {
  try {
    const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return args.some((arg) => /haraka/i.test(arg)) && args.includes(dir);
  } catch {
    return false;
  }
}

/**
 * A Haraka left running by a Mailroom killed before the lifeline could end it would hold the
 * port: end it, but only if the pid file names a Haraka of this very directory, and wait for it.
 */
async function endLeftoverHaraka(pidFile: string, dir: string): Promise<void> {
  let pid = 0;
  try {
    pid = Number(readFileSync(pidFile, 'utf8'));
  } catch {
    return;
  }
  if (pid > 0 && isProcessAlive(pid) && isOurHaraka(pid, dir)) {
    process.kill(pid, 'SIGKILL');
    for (let i = 0; i < 100 && isProcessAlive(pid); i++) await sleep(50);
  }
  rmSync(pidFile, { force: true });
}

/**
 * The inbound MX (`mailroom inbound`, and part of `mailroom start`): our bridge on a Unix socket,
 * then Haraka, started as a real process with a directory written from our configuration and
 * our plugins, which ask the bridge at every RCPT and hand it every message.
 */
export async function startInboundServer(runtime: Runtime): Promise<InboundServer> {
  const { config, logger } = runtime;
  const settings = config.inbound;
  const runDir = resolve(settings.runDir ?? join(config.dataDir, 'inbound'));
  const socketPath = join(runDir, 'bridge.sock');
  if (socketPath.length > MAX_SOCKET_PATH)
    throw new ConfigError(`inbound.runDir is too long for a Unix socket (${socketPath}): set a shorter inbound.runDir`);
  mkdirSync(runDir, { recursive: true });
  const pidFile = join(runDir, 'haraka.pid');
  const dir = join(runDir, 'haraka');
  await endLeftoverHaraka(pidFile, dir);
  const port = await mxPort(config);
  const bridge = await startInboundBridge(runtime, socketPath);
  writeHarakaDirectory(config, { dir, port });
  const haraka = new HarakaProcess({
    dir,
    host: settings.host,
    port,
    logger,
    onSpawn: (pid) => writeFileSync(pidFile, String(pid)),
    env: {
      ...process.env,
      MAILROOM_INBOUND_SOCKET: socketPath,
      MAILROOM_INBOUND_MAX_RECIPIENTS: String(settings.maxRecipients),
      MAILROOM_INBOUND_MAX_CONNECTIONS_PER_CLIENT: String(settings.maxConnectionsPerClient),
    },
  });
  try {
    await haraka.start();
  } catch (err) {
    await haraka.stop();
    bridge.close();
    throw err;
  }
  logger.info(
    { host: settings.host, port, tls: Boolean(settings.certFile), harakaPid: haraka.pid },
    'inbound MX listening',
  );
  return {
    port,
    get harakaPid() {
      return haraka.pid;
    },
    async close() {
      await haraka.stop();
      rmSync(pidFile, { force: true });
      await new Promise<void>((done) => bridge.close(() => done()));
    },
  };
}
