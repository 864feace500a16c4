import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';

/**
 * Starts `mailroom <command>` as a real process and resolves once it logs `readyMessage`
 * ("API listening": with its URL). The caller owns the child (kill it in teardown).
 */
export function spawnMailroom(
  command: 'api' | 'start' | 'mta' | 'scheduler',
  env: NodeJS.ProcessEnv,
  readyMessage = 'API listening',
): { child: ChildProcess; ready: Promise<string> } {
  const child = spawn(process.execPath, ['bin/mailroom.js', command], {
    env: { MAILROOM_LOG_LEVEL: 'info', ...env, MAILROOM_FROM_SOURCE: '1' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return { child, ready: logUrl(child, readyMessage) };
}

/** Ends a child and waits for it to be gone. */
export function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}

/**
 * Resolves with the `url` of the first log line whose message is `message` (attach it right
 * after spawning: lines before are not seen), e.g. 'metrics listening'.
 */
export function logUrl(child: ChildProcess, message: string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      try {
        const entry = JSON.parse(line) as { msg?: string; url?: string };
        if (entry.msg === message) resolve(entry.url ?? '');
      } catch {
        // not a log line
      }
    });
    child.once('exit', (code, signal) => reject(new Error(`mailroom exited (${code ?? signal}) before "${message}"`)));
  });
}

/**
 * The environment that points a spawned `mailroom` command at a test app's node (its config
 * file, data directory and database), quiet, from the sources; `extra` adds or overrides.
 */
export function cliEnvFor(
  config: { dataDir: string; database: { url: string } },
  extra: Record<string, string> = {},
): NodeJS.ProcessEnv {
  return {
    ...process.env,
    MAILROOM_CONFIG: join(config.dataDir, 'mailroom.json'),
    MAILROOM_ENV: 'test',
    MAILROOM_LOG_LEVEL: 'silent',
    MAILROOM_DATA_DIR: config.dataDir,
    MAILROOM_DATABASE_URL: config.database.url,
    MAILROOM_FROM_SOURCE: '1',
    ...extra,
  };
}

/** Resolves with the signal the child ended by (null for a normal exit), at once if it already has. */
export const exitSignal = (child: ChildProcess) =>
  new Promise<NodeJS.Signals | null>((resolve) =>
    child.exitCode !== null || child.signalCode !== null
      ? resolve(child.signalCode)
      : child.once('exit', (_code, signal) => resolve(signal)),
  );

/**
 * Runs `mailroom <args>` from the sources with `input` on standard input (what Ansible's `stdin:`
 * does); resolves with the exit code and output instead of throwing on a failure.
 */
export function mailroomWithStdin(
  env: NodeJS.ProcessEnv,
  args: string[],
  input: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/mailroom.js', ...args], { env: { ...env, MAILROOM_FROM_SOURCE: '1' } });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin!.end(input);
  });
}
