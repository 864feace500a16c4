import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, utimesSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import t from 'tap';
import { stopChild } from '../helpers/spawn-mailroom.js';

/**
 * The compiled production start. A copy of the project (the sources, bin/, scripts/, the tsconfig
 * files and package.json; node_modules linked) is built with scripts/build.js, what `npm ci`
 * runs as `prepare`; then from that copy:
 *   - `mailroom --help` runs the compiled build, without a word on stderr;
 *   - `mailroom start` answers GET /ready (the Haraka plugins and the rest found from dist/);
 *   - `npm start` stopped with SIGTERM to the npm process's pid stops the appliance;
 *   - a source changed after the build is refused in production (exit 2, naming `npm run build`)
 *     and run through tsx with a warning elsewhere; so is a missing build.
 * A copy, so the test neither needs nor touches the checkout's dist/. About a minute (tsc).
 */
const run = promisify(execFile);
const repo = join(import.meta.dirname, '..', '..');
const COPIED = [
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'bin',
  'scripts',
  'web',
  ...['lib', 'app', 'core', 'db', 'api', 'mta', 'inbound', 'scheduler', 'cli', 'submission'],
];

type Outcome = { code: number; stdout: string; stderr: string };
const outcome = (promise: Promise<{ stdout: string; stderr: string }>): Promise<Outcome> =>
  promise.then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (err: { code?: number; stdout?: string; stderr?: string }) => ({
      code: err.code ?? 1,
      stdout: err.stdout ?? '',
      stderr: err.stderr ?? '',
    }),
  );

/** The first log line whose message is `message`: its url and the logging process's pid. */
function logLine(child: ChildProcess, message: string): Promise<{ url: string; pid: number }> {
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      try {
        const entry = JSON.parse(line) as { msg?: string; url?: string; pid?: number };
        if (entry.msg === message) resolve({ url: entry.url ?? '', pid: entry.pid ?? 0 });
      } catch {
        // not a log line (npm's banner)
      }
    });
    child.once('exit', (code, signal) => reject(new Error(`exited (${code ?? signal}) before "${message}"`)));
  });
}

/** Whether a process runs (a zombie, left for an init that may not reap it, has ended). */
const alive = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
};

/** GET on a connection of its own: a pooled keep-alive one, kept busy by polling, holds a closing server open. */
function status(url: string): Promise<number> {
  return new Promise((resolve) => {
    get(url, { agent: false, headers: { 'user-agent': 'mailroom-test' } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    }).on('error', () => resolve(0));
  });
}

async function endedWithin(url: string, pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!alive(pid) && (await status(`${url}/ready`)) === 0) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

if (process.env.MAILROOM_TEST_DATABASE_URL) {
  t.plan(0, 'the compiled-start test runs in the SQLite pass only (MAILROOM_TEST_DATABASE_URL is set)');
} else {
  t.setTimeout(5 * 60_000);
  const dir = mkdtempSync(join(tmpdir(), 'mailroom-compiled-'));
  // Haraka (a child of `mailroom start`) may still be writing in the data directory for a moment.
  t.teardown(() => rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 }));
  const copy = join(dir, 'mailroom');
  for (const name of COPIED) cpSync(join(repo, name), join(copy, name), { recursive: true });
  symlinkSync(join(repo, 'node_modules'), join(copy, 'node_modules'), 'dir');
  const dataDir = join(dir, 'data');
  mkdirSync(dataDir);

  // The appliance's environment: nothing of the runner's MAILROOM_* (MAILROOM_FROM_SOURCE above all),
  // NODE_ENV or tap's variables.
  const env: NodeJS.ProcessEnv = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !/^(MAILROOM_|_?TAP)/.test(name) && !['NODE_ENV', 'NODE_OPTIONS'].includes(name),
    ),
  );
  Object.assign(env, {
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
  const mailroom = (args: string[], extra: NodeJS.ProcessEnv = {}) =>
    outcome(
      run(process.execPath, [join(copy, 'bin', 'mailroom.js'), ...args], { cwd: copy, env: { ...env, ...extra } }),
    );

  t.test('scripts/build.js compiles the copy', async (t) => {
    const started = Date.now();
    const build = await outcome(run(process.execPath, [join(copy, 'scripts', 'build.js')], { cwd: copy, env }));
    t.equal(build.code, 0, build.stderr);
    t.match(build.stderr, /compiled \d+ sources into dist\//);
    t.match(build.stderr, /built the dashboard into dist\/web\//, 'and the dashboard');
    t.ok(readFileSync(join(copy, 'dist', 'web', 'build-stamp.json'), 'utf8').includes('fingerprint'), 'with its stamp');
    t.comment(`build: ${Math.round((Date.now() - started) / 1000)} s`);
  });

  t.test('mailroom --help runs the compiled build, without a warning', async (t) => {
    const help = await mailroom(['--help']);
    t.equal(help.code, 0, help.stderr);
    t.match(help.stdout, /Usage: mailroom/);
    t.equal(help.stderr, '', 'nothing on stderr: no stale or missing build');
  });

  t.test('mailroom start from the build answers GET /ready', async (t) => {
    const child = spawn(process.execPath, [join(copy, 'bin', 'mailroom.js'), 'start'], {
      cwd: copy,
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    t.teardown(() => stopChild(child));
    const inbound = logLine(child, 'inbound MX listening');
    const { url } = await logLine(child, 'API listening');
    await inbound;
    t.equal(await status(`${url}/ready`), 200, 'GET /ready');
    t.equal(await status(`${url}/dashboard/`), 200, 'the dashboard is served');
    await stopChild(child);
  });

  t.test('a dashboard older than web/ is refused in production and rebuilt in a checkout', async (t) => {
    const future = new Date(Date.now() + 60_000);
    utimesSync(join(copy, 'web', 'src', 'main.tsx'), future, future);
    const refused = await mailroom(['--version'], { NODE_ENV: 'production' });
    t.equal(refused.code, 2, 'production refuses to serve it');
    t.match(refused.stderr, /the dashboard build in dist\/web is out of date/);
    t.match(refused.stderr, /run `npm run build`/);
    const child = spawn(process.execPath, [join(copy, 'bin', 'mailroom.js'), 'api'], {
      cwd: copy,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    t.teardown(() => stopChild(child));
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const { url } = await logLine(child, 'API listening');
    t.match(
      stderr,
      /dashboard build in dist\/web is out of date: web\/ changed since it was built; rebuilding it/,
      'a checkout rebuilds it first',
    );
    t.equal(await status(`${url}/dashboard/`), 200, 'and serves the new build');
    await stopChild(child);
    const fresh = await mailroom(['--version'], { NODE_ENV: 'production' });
    t.equal(fresh.code, 0, `fresh again: ${fresh.stderr}`);
  });

  t.test('npm start stopped by the npm process pid (SIGTERM) stops the appliance', async (t) => {
    const npm = spawn('npm', ['start', '--silent'], { cwd: copy, env, stdio: ['ignore', 'pipe', 'inherit'] });
    let appliancePid = 0;
    t.teardown(async () => {
      await stopChild(npm, 'SIGKILL');
      if (appliancePid && alive(appliancePid)) process.kill(appliancePid, 'SIGKILL');
    });
    // The appliance takes signals once everything listens: its last line is the metrics server's.
    const listening = logLine(npm, 'metrics listening');
    const { url, pid } = await logLine(npm, 'API listening');
    appliancePid = pid;
    await listening;
    t.equal(await status(`${url}/ready`), 200, 'GET /ready');
    npm.kill('SIGTERM');
    t.ok(await endedWithin(url, pid, 15_000), `process ${pid} ends and its port closes within 15 s`);
  });

  t.test('an out-of-date or missing build never runs silently', async (t) => {
    const future = new Date(Date.now() + 60_000);
    utimesSync(join(copy, 'lib', 'version.ts'), future, future);

    const refused = await mailroom(['--version'], { NODE_ENV: 'production' });
    t.equal(refused.code, 2, 'production refuses it');
    t.equal(refused.stdout, '');
    t.match(refused.stderr, /out of date: lib\/version\.ts changed since it was built/);
    t.match(refused.stderr, /run `npm run build`/);
    const refusedByConfig = await mailroom(['--version'], { MAILROOM_ENV: 'production' });
    t.equal(refusedByConfig.code, 2, 'so does MAILROOM_ENV=production');

    const fallback = await mailroom(['--version']);
    t.equal(fallback.code, 0, fallback.stderr);
    t.match(fallback.stdout, /^\d+\.\d+\.\d+/, 'elsewhere the sources run');
    t.match(fallback.stderr, /out of date: lib\/version\.ts changed.*running the TypeScript sources through tsx/);

    rmSync(join(copy, 'dist', 'build-stamp.json'));
    const missing = await mailroom(['--version'], { NODE_ENV: 'production' });
    t.equal(missing.code, 2, 'a build without its stamp is refused too');
    t.match(missing.stderr, /there is no compiled build/);
  });
}
