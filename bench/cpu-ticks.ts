import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

/**
 * The most items (requests, messages) per second this machine could process at `cpuMsPerItem`
 * of CPU each (every process of the run counted) if every core were busy with them: a ceiling
 * that no tuning of concurrency or process count can pass; only less CPU per item raises it.
 */
export const machineCeilingPerSecond = (cpuMsPerItem: number) => (availableParallelism() * 1000) / cpuMsPerItem;

/** Postfix's daemons and helpers (their process names), whose CPU is Postfix's side of a run. */
export const POSTFIX_PROCESSES = [
  'master',
  'qmgr',
  'smtp',
  'scache',
  'postlogd',
  'trivial-rewrite',
  'cleanup',
  'pickup',
  'smtpd',
  'anvil',
  'tlsmgr',
  'proxymap',
  'bounce',
  'postdrop',
];

/** Clock ticks per second of /proc/<pid>/stat's utime and stime (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/**
 * CPU time (user + system, in seconds) of the live processes with these command names, from
 * /proc. Two readings around a run give what those processes spent in it (processes that come
 * and go in between are missed; Postfix's daemons stay up for the run).
 */
export function cpuSeconds(names: string[]): number {
  return ticksOf(
    readdirSync('/proc').filter((pid) => /^\d+$/.test(pid)),
    new Set(names),
  );
}

/** The same for the given process ids (a benchmark's own child processes). */
export function cpuSecondsOfPids(pids: number[]): number {
  return ticksOf(pids.map(String), null);
}

function ticksOf(pids: string[], wanted: Set<string> | null): number {
  let ticks = 0;
  for (const pid of pids) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    if (wanted && !wanted.has(name)) continue;
    // Fields after the name: state is the 1st, utime the 12th and stime the 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks / TICKS_PER_SECOND;
}
