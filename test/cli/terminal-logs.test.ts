import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import t from 'tap';
import { commandEnv } from '../helpers/process-env.js';
import { createTestDatabase } from '../helpers/test-database.js';

/**
 * Logs on a terminal in development are lines for people (pino-pretty); in production, and on a
 * pipe in any environment, they stay JSON. `script` (util-linux) gives the process a terminal.
 */
const SCRIPT = '/usr/bin/script';
if (!existsSync(SCRIPT) && !process.env.CI) t.plan(0, 'util-linux script is not installed: no terminal to run under');
const database = createTestDatabase();
t.teardown(() => database.drop());

/** Runs `mailroom api` under a terminal until it says it listens; what it printed, or a timeout. */
function underTerminal(extraEnv: Record<string, string>): Promise<string> {
  const command = `exec ${JSON.stringify(process.execPath)} bin/mailroom.js api`;
  const child = spawn(SCRIPT, ['-qfec', command, '/dev/null'], {
    env: commandEnv(database, { MAILROOM_LOG_LEVEL: 'info', ...extraEnv, MAILROOM_FROM_SOURCE: '1' }),
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no "API listening" within 30 s; printed:\n${output}`));
    }, 30_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (/API listening/.test(output)) {
        clearTimeout(timer);
        child.once('exit', () => resolve(output));
        child.kill('SIGTERM');
      }
    });
  });
}

t.test('development on a terminal: readable lines, not JSON', async (t) => {
  const output = await underTerminal({ MAILROOM_ENV: 'development' });
  const line = output.split(/\r?\n/).find((entry) => entry.includes('API listening'))!;
  t.notMatch(line, /^\s*\{/, 'not a JSON object');
  t.match(line, /INFO/, 'the level as a word');
  t.match(line, /\d\d:\d\d:\d\d\.\d{3}/, 'a local time of day');
});

t.test('production on a terminal: JSON all the same', async (t) => {
  const output = await underTerminal({ MAILROOM_ENV: 'production', MAILROOM_MASTER_KEY: 'k'.repeat(40) });
  const line = output.split(/\r?\n/).find((entry) => entry.includes('API listening'))!;
  t.match(JSON.parse(line), { msg: 'API listening', level: 30 });
});
