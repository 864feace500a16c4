import { readdirSync, readFileSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';

/** Clock ticks per second of /proc/<pid>/stat's times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

type ProcStat = { ppid: number; name: string; ticks: number };

/** One process's /proc/<pid>/stat: parent, command name, and its CPU plus its reaped children's. */
function readStat(pid: number): ProcStat | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null; // exited meanwhile
  }
  const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
  // Fields after the name: state is the 1st, ppid the 2nd, utime/stime the 12th/13th and
  // cutime/cstime (children it has waited for) the 14th/15th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = [11, 12, 13, 14].reduce((sum, index) => sum + Number(fields[index] ?? 0), 0);
  return { ppid: Number(fields[1]), name, ticks };
}

/**
 * CPU seconds (user + system) a process and every descendant has used so far, from /proc: for
 * each live process of the tree its own time plus that of the children it has reaped (cutime,
 * cstime). A child that exits between two readings (a Postfix cleanup after its max_use) thus
 * moves into its parent's figure instead of vanishing, so the difference of two readings is
 * exactly what the tree spent in between.
 */
export function treeCpuSeconds(rootPid: number): number {
  const stats = new Map<number, ProcStat>();
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    const stat = readStat(pid);
    if (!stat) continue;
    stats.set(pid, stat);
    children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), pid]);
  }
  let ticks = 0;
  const pending = [rootPid];
  while (pending.length > 0) {
    const pid = pending.pop()!;
    const stat = stats.get(pid);
    if (!stat) continue;
    ticks += stat.ticks;
    pending.push(...(children.get(pid) ?? []));
  }
  return ticks / TICKS_PER_SECOND;
}

/** True while the process exists (and is not a reaped child). */
export function alive(child: ChildProcess): boolean {
  return Boolean(child.pid) && child.exitCode === null && child.signalCode === null;
}

/** Sends a signal to the process group a detached child leads; a group already gone is fine. */
export function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (!pid) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // the group is gone already
  }
}

/**
 * Stops a detached child: `signal` to the child (it stops its own children, as Mailroom stops
 * its Haraka and Postfix's master its daemons), SIGKILL to its whole process group after
 * `graceMs`; resolves once it has exited, after killing whatever it left in its group.
 */
export async function stopGroup(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM', graceMs = 15_000) {
  if (alive(child)) {
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill(signal);
    const timer = setTimeout(() => signalGroup(child.pid, 'SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  }
  signalGroup(child.pid, 'SIGKILL');
}
