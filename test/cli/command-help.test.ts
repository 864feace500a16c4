import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { Command } from 'commander';
import t from 'tap';
import { jobs } from '../../scheduler/jobs/index.js';

/**
 * Issue 32: every `mailroom` command and subcommand says what it does in --help; `job run`
 * lists the jobs it can run; an unknown job is one line and a usage error (exit 2), not a stack
 * trace.
 */
const run = promisify(execFile);
const mailroom = (args: string[]) =>
  run(process.execPath, ['bin/mailroom.js', ...args], {
    env: { ...process.env, MAILROOM_CONFIG: '', MAILROOM_LOG_LEVEL: 'silent', MAILROOM_FROM_SOURCE: '1' },
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (err: { code: number; stdout: string; stderr: string }) => err,
  );

/**
 * The program as cli/main.ts builds it: every `register...Commands` of every command file (one
 * file per command group), so a command added in a new file is walked too.
 */
async function program(): Promise<Command> {
  const root = new Command('mailroom');
  const main = readFileSync('cli/main.ts', 'utf8');
  const files = readdirSync('cli/commands').filter((file) => file.endsWith('.command.ts'));
  let registered = 0;
  for (const file of files) {
    const module = (await import(`../../cli/commands/${file.replace(/\.ts$/, '.js')}`)) as Record<string, unknown>;
    for (const [name, register] of Object.entries(module)) {
      if (!/^register\w+Commands$/.test(name) || typeof register !== 'function') continue;
      if (!main.includes(`${name}(program)`)) throw new Error(`cli/main.ts does not call ${name}`);
      (register as (program: Command) => void)(root);
      registered++;
    }
  }
  if (registered < files.length) throw new Error('a command file registers nothing');
  return root;
}

function walk(command: Command, path: string[] = []): Array<{ path: string; description: string }> {
  return command.commands.flatMap((sub) => {
    const here = [...path, sub.name()];
    return [{ path: here.join(' '), description: sub.description() }, ...walk(sub, here)];
  });
}

t.test('every command and subcommand has a description', async (t) => {
  const all = walk(await program());
  t.ok(all.length > 40, `${all.length} commands walked`);
  t.same(
    all.filter((command) => command.description.trim() === '').map((command) => command.path),
    [],
    'none without one',
  );
  t.match(
    all.find((command) => command.path === 'team set-plan'),
    { description: /plan/ },
  );
  t.match(
    all.find((command) => command.path === 'team set-tier'),
    { description: /sandbox/ },
  );
});

t.test('every scheduled job has a one-line description', async (t) => {
  for (const job of jobs) {
    t.ok(job.description.length > 10, `${job.name} says what it does`);
    t.notMatch(job.description, /\n/, `${job.name}: one line`);
  }
});

t.test('job run --help lists every job with its description', async (t) => {
  const { code, stdout } = await mailroom(['job', 'run', '--help']);
  t.equal(code, 0);
  for (const job of jobs)
    t.match(stdout, new RegExp(`^  ${job.name} +${job.description.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
});

t.test('an unknown job: one line naming the known ones, exit 2, no stack trace', async (t) => {
  const { code, stdout, stderr } = await mailroom(['job', 'run', 'no-such-job']);
  t.equal(code, 2, 'a usage error');
  t.equal(stdout, '');
  const said = stderr.split('\n').filter((line) => /no-such-job/.test(line));
  t.same(said, [`unknown job no-such-job; known jobs: ${jobs.map((job) => job.name).join(', ')}`]);
  t.notMatch(stderr, /^\s+at /m, 'no stack trace');
});
