import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import t from 'tap';
import { readEnvFile } from '../helpers/cluster/render-cluster-config.js';
import { stopChild } from '../helpers/spawn-mailroom.js';

/**
 * The Ansible playbook (ansible/): ansible-lint and a syntax check of site.yml with the three example
 * inventories, then site.yml run twice against this machine (connection local) into a throwaway
 * prefix, with the parts that need root and a real server switched off (user, MariaDB, Redis,
 * Node.js, firewall, systemd): the first run changes things and fails nothing, the second
 * changes nothing. The installed tree then starts (`mailroom start` from <prefix>/opt/mailroom/current
 * with the rendered mailroom.json and mailroom.env) and answers GET /ready. The first run
 * unpacks a release and runs `npm ci --omit=dev` (building better-sqlite3): a few minutes.
 */
const run = promisify(execFile);
const repo = join(import.meta.dirname, '..', '..');
const ansibleDir = join(repo, 'ansible');
const has = (command: string) =>
  run(command, ['--version']).then(
    () => true,
    () => false,
  );
const [hasPlaybook, hasLint] = await Promise.all([has('ansible-playbook'), has('ansible-lint')]);
const MISSING =
  'ansible-playbook is not installed (apt-get install --no-install-recommends ansible-core ansible-lint; CI installs them)';

const ansibleEnv: NodeJS.ProcessEnv = {
  ...process.env,
  ANSIBLE_CONFIG: join(ansibleDir, 'ansible.cfg'),
  ANSIBLE_NOCOLOR: '1',
  ANSIBLE_FORCE_COLOR: '0',
};
const ansible = (command: string, args: string[]) =>
  run(command, args, { cwd: ansibleDir, env: ansibleEnv, maxBuffer: 64 * 1024 * 1024 }).then(
    (out) => ({ code: 0, output: out.stdout + out.stderr }),
    (err: { code?: number; stdout?: string; stderr?: string }) => ({
      code: err.code ?? 1,
      output: (err.stdout ?? '') + (err.stderr ?? ''),
    }),
  );

/** The PLAY RECAP line of one host: ok, changed, unreachable, failed. */
function recap(output: string, host: string): Record<string, number> | undefined {
  const section = output.slice(output.lastIndexOf('PLAY RECAP'));
  const line = section.split('\n').find((candidate) => candidate.startsWith(`${host} `));
  if (!line) return undefined;
  return Object.fromEntries([...line.matchAll(/(\w+)=(\d+)/g)].map((m) => [m[1]!, Number(m[2])]));
}

if (process.env.MAILROOM_TEST_DATABASE_URL) {
  t.plan(0, 'the playbook test runs in the SQLite pass only (MAILROOM_TEST_DATABASE_URL is set)');
} else if (!hasPlaybook && !process.env.CI) {
  t.plan(0, MISSING);
} else {
  t.setTimeout(20 * 60_000);
  if (!hasPlaybook) t.fail(MISSING);

  t.test(
    'ansible-lint passes',
    { skip: !hasLint && !process.env.CI ? 'ansible-lint is not installed' : false },
    async (t) => {
      const lint = await ansible('ansible-lint', ['--nocolor']);
      t.equal(lint.code, 0, lint.output.trim().split('\n').slice(-30).join('\n'));
    },
  );

  t.test('site.yml passes the syntax check with each example inventory', async (t) => {
    for (const inventory of [
      'inventory.example.yml',
      'inventory.single-node.example.yml',
      'inventory.cluster.example.yml',
    ]) {
      const check = await ansible('ansible-playbook', ['-i', inventory, '--syntax-check', 'site.yml']);
      t.equal(check.code, 0, `${inventory}: ${check.output.trim()}`);
    }
  });

  t.test('site.yml on this machine into a prefix, twice, then the installed appliance starts', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'mailroom-ansible-'));
    // Haraka (a child of `mailroom start`) may still be writing in the data directory for a moment.
    t.teardown(() => rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 }));
    const prefix = join(dir, 'root');
    const { username } = userInfo();
    const group = (await run('id', ['-gn'])).stdout.trim();
    const inventory = join(dir, 'inventory.yml');
    writeFileSync(
      inventory,
      JSON.stringify({
        all: {
          children: {
            mailroom: {
              hosts: { localhost: { ansible_connection: 'local', ansible_python_interpreter: 'auto_silent' } },
            },
          },
        },
      }),
    );
    const vars = join(dir, 'vars.json');
    writeFileSync(
      vars,
      JSON.stringify({
        mailroom_prefix: prefix,
        mailroom_become: false,
        mailroom_create_user: false,
        mailroom_user: username,
        mailroom_group: group,
        mailroom_config_owner: username,
        mailroom_manage_services: false,
        mailroom_install_mariadb: false,
        mailroom_install_redis: false,
        mailroom_node_install: 'skip',
        mailroom_node_bin: process.execPath,
        mailroom_firewall_enabled: false,
        mailroom_build_dir: join(dir, 'build'),
      }),
    );
    const playbook = () => ansible('ansible-playbook', ['-i', inventory, '-e', `@${vars}`, 'site.yml']);

    const started = Date.now();
    const first = await playbook();
    const firstRecap = recap(first.output, 'localhost');
    t.comment(`first run: ${JSON.stringify(firstRecap)} in ${Math.round((Date.now() - started) / 1000)} s`);
    t.equal(first.code, 0, 'the first run succeeds');
    t.equal(firstRecap?.failed, 0, 'the first run fails nothing');
    t.ok((firstRecap?.changed ?? 0) > 0, 'the first run changes things');
    if (first.code !== 0) {
      t.comment(first.output.split('\n').slice(-60).join('\n'));
      return;
    }
    const envFile = join(prefix, 'etc', 'mailroom', 'mailroom.env');
    const secrets = readEnvFile(envFile);
    t.ok((secrets.MAILROOM_MASTER_KEY ?? '').length >= 32, 'a master key of 32+ characters is generated');
    t.equal(
      secrets.MAILROOM_DATABASE_URL,
      `sqlite://${prefix}/var/lib/mailroom/mailroom.sqlite`,
      'SQLite in the prefix',
    );
    t.equal((await run('stat', ['-c', '%a', envFile])).stdout.trim(), '600', 'mailroom.env is mode 0600');

    const secondStarted = Date.now();
    const second = await playbook();
    const secondRecap = recap(second.output, 'localhost');
    t.comment(`second run: ${JSON.stringify(secondRecap)} in ${Math.round((Date.now() - secondStarted) / 1000)} s`);
    t.equal(second.code, 0, 'the second run succeeds');
    t.match(second.output, /^localhost\s+:\s+ok=\d+\s+changed=0\s+unreachable=0\s+failed=0\b/m, 'changed=0');
    t.equal(readEnvFile(envFile).MAILROOM_MASTER_KEY, secrets.MAILROOM_MASTER_KEY, 'the master key is kept');

    const current = join(prefix, 'opt', 'mailroom', 'current');
    const unit = readFileSync(join(prefix, 'etc', 'systemd', 'system', 'mailroom-api.service'), 'utf8');
    t.match(unit, `\nExecStart=${process.execPath} ${current}/bin/mailroom.js api\n`, 'units run the current release');
    t.match(unit, `\nEnvironmentFile=-${envFile}\n`, 'units read the env file in the prefix');

    const printed = await run(join(prefix, 'usr', 'local', 'bin', 'mailroom'), ['config', 'print']);
    t.match(JSON.parse(printed.stdout), { env: 'production', masterKey: '********' }, 'the mailroom command');

    const env: NodeJS.ProcessEnv = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !name.startsWith('MAILROOM_')),
    );
    Object.assign(env, secrets, {
      NODE_ENV: 'production',
      MAILROOM_CONFIG: join(prefix, 'etc', 'mailroom', 'mailroom.json'),
      MAILROOM_API_PORT: '0',
      MAILROOM_SUBMISSION_PORT: '0',
      MAILROOM_INBOUND_PORT: '0',
      MAILROOM_METRICS_PORT: '0',
      MAILROOM_DNS_SERVERS: '127.0.0.1:1',
    });
    const child = spawn(process.execPath, [join(current, 'bin', 'mailroom.js'), 'start'], {
      cwd: current,
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    t.teardown(() => stopChild(child));
    const url = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout! }).on('line', (line) => {
        try {
          const entry = JSON.parse(line) as { msg?: string; url?: string };
          if (entry.msg === 'API listening' && entry.url) resolve(entry.url);
        } catch {
          // not a log line
        }
      });
      child.once('exit', (code, signal) => reject(new Error(`mailroom start exited (${code ?? signal})`)));
    });
    const ready = await fetch(`${url}/ready`);
    t.equal(ready.status, 200, `GET /ready: ${await ready.text()}`);
    await stopChild(child);
  });
}
