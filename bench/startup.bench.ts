/**
 * Start-up benchmark: how long the `mailroom` command takes to do something small, run the way
 * production runs it (bin/mailroom.js on the compiled build in dist/) and, for comparison, through
 * tsx (MAILROOM_FROM_SOURCE=1: what every start cost before the build), in the same run. tsx twice:
 * with its transform cache warm (a developer's shell) and cold (a fresh TMPDIR per run: what a
 * systemd unit, with PrivateTmp, got at every start and restart):
 *   - `mailroom --help`                 goal < 0.4 s
 *   - `mailroom start` until GET /ready   goal < 3 s (every process of a node: API, MTA, scheduler,
 *                                        submission, Haraka)
 *   - `mailroom team create`            goal < 0.8 s (on a migrated SQLite database)
 * Each figure is the median wall time of BENCH_RUNS runs (default 5; 3 for start) and the CPU
 * milliseconds the command used (its process tree), with the ratios tsx / compiled. Printed, never
 * asserted. A node running an empty script is the floor. Builds dist/ first when it is not fresh.
 *
 *   npm run bench:startup     (SQLite in a temporary directory; no other service needed)
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { treeCpuSeconds } from './inbound/process-tree.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const START_RUNS = Number(process.env.BENCH_START_RUNS ?? Math.min(RUNS, 3));
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin', 'mailroom.js');
/** Clock ticks per second of /proc/<pid>/stat's times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

const MODES = ['compiled', 'tsx', 'tsx-cold'] as const;
type Mode = (typeof MODES)[number];
type Sample = { seconds: number; cpuMs: number };

const dir = mkdtempSync(join(tmpdir(), 'mailroom-bench-startup-'));
const dataDir = join(dir, 'data');
const baseEnv: NodeJS.ProcessEnv = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !name.startsWith('MAILROOM_') && name !== 'NODE_ENV'),
);
Object.assign(baseEnv, {
  MAILROOM_CONFIG: '',
  MAILROOM_DATA_DIR: dataDir,
  MAILROOM_DATABASE_URL: `sqlite://${join(dataDir, 'mailroom.sqlite')}`,
  MAILROOM_API_PORT: '0',
  MAILROOM_SUBMISSION_PORT: '0',
  MAILROOM_INBOUND_PORT: '0',
  MAILROOM_METRICS_PORT: '0',
  MAILROOM_DNS_SERVERS: '127.0.0.1:1',
  MAILROOM_LOG_LEVEL: 'info',
});
let coldRuns = 0;
/** The environment of a run; tsx-cold gets a TMPDIR of its own, so tsx's transform cache starts empty. */
function envOf(mode: Mode): NodeJS.ProcessEnv {
  if (mode === 'compiled') return baseEnv;
  if (mode === 'tsx') return { ...baseEnv, MAILROOM_FROM_SOURCE: '1' };
  const temp = join(dir, `tmp-${++coldRuns}`);
  mkdirSync(temp);
  return { ...baseEnv, MAILROOM_FROM_SOURCE: '1', TMPDIR: temp };
}

/** CPU seconds of the children this process has waited for (cutime + cstime of /proc/self/stat). */
function reapedChildrenCpuSeconds(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) / TICKS_PER_SECOND;
}

/** bin/mailroom.js's line for a build it does not run (then the figure would be tsx's, not the build's). */
const NOT_COMPILED = /^mailroom: .*(out of date|no compiled build)/m;

/** Runs a command to its end: wall seconds and CPU ms; throws on a failure, or if `compiled` and it ran tsx. */
function timed(args: string[], env: NodeJS.ProcessEnv, compiled: boolean): Sample {
  const cpuBefore = reapedChildrenCpuSeconds();
  const started = performance.now();
  const result = spawnSync(process.execPath, args, { env, encoding: 'utf8' });
  const seconds = (performance.now() - started) / 1000;
  if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  if (compiled && NOT_COMPILED.test(result.stderr)) throw new Error(`not the build: ${result.stderr.trim()}`);
  return { seconds, cpuMs: (reapedChildrenCpuSeconds() - cpuBefore) * 1000 };
}

/** `mailroom start` until GET /ready answers 200: wall seconds and the process tree's CPU ms then. */
async function startUntilReady(mode: Mode): Promise<Sample> {
  const started = performance.now();
  const child = spawn(process.execPath, [BIN, 'start'], { env: envOf(mode), stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout! }).on('line', (line) => {
        try {
          const entry = JSON.parse(line) as { msg?: string; url?: string };
          if (entry.msg === 'API listening' && entry.url) resolve(entry.url);
        } catch {
          // not a log line
        }
      });
      child.once('exit', (code) => reject(new Error(`mailroom start exited (${code}): ${stderr}`)));
    });
    while (
      (await fetch(`${url}/ready`).then(
        (r) => r.status,
        () => 0,
      )) !== 200
    )
      await new Promise((resolve) => setTimeout(resolve, 20));
    const seconds = (performance.now() - started) / 1000;
    const cpuMs = treeCpuSeconds(child.pid!) * 1000;
    if (mode === 'compiled' && NOT_COMPILED.test(stderr)) throw new Error(`not the build: ${stderr.trim()}`);
    return { seconds, cpuMs };
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const summary = (samples: Sample[]): Sample => ({
  seconds: median(samples.map((s) => s.seconds)),
  cpuMs: median(samples.map((s) => s.cpuMs)),
});

/** dist/ built from the sources as they are now: build it when the command says it is not. */
function ensureFreshBuild(): void {
  const probe = spawnSync(process.execPath, [BIN, '--version'], { env: baseEnv, encoding: 'utf8' });
  if (probe.status === 0 && !NOT_COMPILED.test(probe.stderr)) return;
  console.log(`dist/ is not fresh (${probe.stderr.trim().split('\n')[0]}): npm run build`);
  const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
  if (build.status !== 0) throw new Error('npm run build failed');
}

async function main() {
  ensureFreshBuild();
  timed([BIN, 'migrate'], baseEnv, true);

  const rows: Array<{ name: string; goal: number | null; figures: Partial<Record<Mode, Sample>> }> = [];
  const floor: Sample[] = [];
  for (let i = 0; i < RUNS; i++) floor.push(timed(['-e', ''], baseEnv, false));
  rows.push({ name: 'node (empty script)', goal: null, figures: { compiled: summary(floor) } });

  const each = async (name: string, goal: number, runs: number, once: (mode: Mode, i: number) => Promise<Sample>) => {
    const samples: Record<Mode, Sample[]> = { compiled: [], tsx: [], 'tsx-cold': [] };
    // Interleaved, so a slow phase of a noisy machine falls on every mode.
    for (let i = 0; i < runs; i++) for (const mode of MODES) samples[mode].push(await once(mode, i));
    const figures = Object.fromEntries(MODES.map((mode) => [mode, summary(samples[mode])]));
    rows.push({ name, goal, figures });
  };
  await each('mailroom --help', 0.4, RUNS, async (mode) => timed([BIN, '--help'], envOf(mode), mode === 'compiled'));
  await each('mailroom start to /ready', 3, START_RUNS, startUntilReady);
  await each('mailroom team create', 0.8, RUNS, async (mode, i) =>
    timed([BIN, 'team', 'create', '--name', `Bench ${mode} ${i}`], envOf(mode), mode === 'compiled'),
  );

  const cell = (sample: Sample | undefined) =>
    sample ? `${sample.seconds.toFixed(2)} s (${Math.round(sample.cpuMs)} ms CPU)` : '';
  const ratio = (row: (typeof rows)[number], mode: Mode) =>
    row.figures[mode] ? `${(row.figures[mode].seconds / row.figures.compiled!.seconds).toFixed(1)}x` : '';
  const load = loadavg().map((value) => value.toFixed(1));
  console.log(
    `\nstartup, node ${process.version}, ${availableParallelism()} cores, load ${load.join(' ')}; ` +
      `medians of ${RUNS} runs (${START_RUNS} for start)`,
  );
  const line = (cells: string[]) =>
    console.log(
      cells
        .map((text, i) => text.padEnd([26, 9, 36, 24, 24, 0][i]!))
        .join(' ')
        .trimEnd(),
    );
  line(['figure', 'goal', 'compiled', 'tsx, cache warm', 'tsx, cache cold', 'tsx/compiled warm, cold']);
  for (const row of rows) {
    const verdict = row.goal === null ? '' : row.figures.compiled!.seconds < row.goal ? ' within goal' : ' over goal';
    line([
      row.name,
      row.goal === null ? '' : `< ${row.goal} s`,
      cell(row.figures.compiled) + verdict,
      cell(row.figures.tsx),
      cell(row.figures['tsx-cold']),
      row.figures.tsx ? `${ratio(row, 'tsx')}, ${ratio(row, 'tsx-cold')}` : '',
    ]);
  }
}

try {
  await main();
} finally {
  rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
}
