import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';

/** A log line of the spawned process (pino JSON). */
export type LogEntry = { msg?: string; [key: string]: unknown };

export type InboundProcess = {
  child: ChildProcess;
  /** Resolves once the process logs "inbound MX listening": its port and its Haraka's pid. */
  ready: Promise<{ port: number; harakaPid: number }>;
  /** Every log line so far, for diagnostics. */
  log: LogEntry[];
};

/**
 * Starts `mailroom inbound` as a real process (the Haraka MX with our plugins, and the bridge
 * they call). The caller owns the child and its Haraka: end both in teardown (stopInbound).
 */
export function spawnInbound(env: NodeJS.ProcessEnv): InboundProcess {
  const child = spawn(process.execPath, ['bin/mailroom.js', 'inbound'], {
    env: { MAILROOM_LOG_LEVEL: 'info', ...env, MAILROOM_FROM_SOURCE: '1' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const log: LogEntry[] = [];
  const ready = new Promise<{ port: number; harakaPid: number }>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      let entry: LogEntry;
      try {
        entry = JSON.parse(line) as LogEntry;
      } catch {
        return; // not a log line
      }
      log.push(entry);
      if (entry.msg === 'inbound MX listening')
        resolve({ port: Number(entry.port), harakaPid: Number(entry.harakaPid) });
    });
    child.once('exit', (code, signal) => reject(new Error(`mailroom inbound exited (${code ?? signal})`)));
  });
  ready.catch(() => undefined); // a caller that never awaits it must not crash the test on exit
  return { child, ready, log };
}

/** A TCP port nothing listens on right now (the test then gives it to the process it starts). */
export function freeTcpPort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, host, () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** Whether something holds `port` (binding it fails with EADDRINUSE); nothing connects to it. */
export function portInUse(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => (err.code === 'EADDRINUSE' ? resolve(true) : reject(err)));
    probe.listen(port, host, () => probe.close(() => resolve(false)));
  });
}

/**
 * Whether `pid` is a live Haraka process: it exists, is not a zombie, and its command line
 * names Haraka (a pid reused by another process after Haraka died is not Haraka).
 */
export function harakaRunning(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) S ...": the state follows the last ')'.
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    if (state === 'Z' || state === 'X') return false;
    return /haraka/i.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
  } catch {
    return false;
  }
}

/** SIGKILLs `pid` if it is still a live Haraka (teardown of a Haraka a killed Mailroom left). */
export function endHaraka(pid: number): void {
  if (!harakaRunning(pid)) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // gone meanwhile
  }
}

/**
 * Pids of the live Haraka processes started with their directory under `runDir` (`-c
 * <runDir>/haraka`): what a test's teardown ends whatever state a failure left it in.
 */
export function harakasUnder(runDir: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let cmdline = '';
    try {
      cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (cmdline.includes(`${runDir}/haraka`) && harakaRunning(Number(name))) pids.push(Number(name));
  }
  return pids;
}

/** The pid in `<runDir>/haraka.pid`, or 0. */
export function harakaPidFile(runDir: string): number {
  try {
    return Number(readFileSync(`${runDir}/haraka.pid`, 'utf8')) || 0;
  } catch {
    return 0;
  }
}

/** Polls `condition` until it holds; throws naming `what` after `timeoutMs` (a hang guard, not a timing assertion). */
export async function waitUntil(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/**
 * Ends a `mailroom inbound` child: SIGTERM (it stops its Haraka), SIGKILL if it has not exited
 * after `graceMs`. Resolves once it is gone.
 */
export async function stopInbound(child: ChildProcess, graceMs = 20_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}
