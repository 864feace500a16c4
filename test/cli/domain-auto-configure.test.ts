import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import t from 'tap';
import { BindServer, NAMED } from '../helpers/bind-server.js';
import { request } from '../helpers/http.js';
import { startTestApp } from '../helpers/test-app.js';
import { cliEnvFor } from '../helpers/spawn-mailroom.js';

/**
 * `mailroom domain auto-configure --domain NAME [--team ID]`: the same as the API route, from
 * the operator's shell, against a real BIND 9. Skipped without named outside CI.
 */
const run = promisify(execFile);

if (!NAMED && !process.env.CI) {
  t.plan(0, 'named is not installed (apt install bind9 bind9-dnsutils)');
} else {
  await main();
}

async function main() {
  const bind = await BindServer.start([{ name: 'example.test', allowUpdate: true }]);
  t.teardown(() => bind.close());
  const app = await startTestApp({
    env: { MAILROOM_DNS_SERVERS: bind.address },
    config: {
      mta: { hostname: 'mta.mailroom.test' },
      tracking: { host: 'track.mailroom.test' },
      dns: {
        updateZones: [
          {
            zone: 'example.test',
            server: '127.0.0.1',
            port: bind.port,
            keyName: bind.keyName,
            keySecretFile: bind.keyFile,
          },
        ],
      },
    },
  });
  t.teardown(() => app.close());
  const { config } = app.runtime;
  const env = cliEnvFor(config, { MAILROOM_DNS_SERVERS: bind.address });
  delete env.MAILROOM_REDIS_URL;
  const mailroom = (args: string[]) =>
    run(process.execPath, ['bin/mailroom.js', ...args], { env }).then(
      ({ stdout }) => ({ code: 0, stdout, stderr: '' }),
      (err: { code: number; stdout: string; stderr: string }) => err,
    );
  const teams = [await app.createTeam('One', 'unlimited'), await app.createTeam('Two', 'unlimited')];
  const create = (token: string, name: string) =>
    request(app.url, '/domains', { method: 'POST', token, body: { name } });
  // Two teams add the same name (neither verified yet): the command must be told which one.
  for (const team of teams) {
    const res = await create(team.token, 'cli.example.test');
    if (res.status !== 201) throw new Error(`POST /domains: ${res.status} ${res.text}`);
  }

  t.test('a name in two teams needs --team; an unknown name is not_found', async (t) => {
    const ambiguous = await mailroom(['domain', 'auto-configure', '--domain', 'cli.example.test']);
    t.equal(ambiguous.code, 1);
    t.match(JSON.parse(ambiguous.stderr), { statusCode: 400, name: 'validation_error', message: /--team/ });
    const unknown = await mailroom(['domain', 'auto-configure', '--domain', 'nope.example.test']);
    t.equal(unknown.code, 1);
    t.match(JSON.parse(unknown.stderr), { statusCode: 404, name: 'not_found' });
  });

  t.test('publishes the records and prints the managed domain', async (t) => {
    const args = ['domain', 'auto-configure', '--domain', 'cli.example.test', '--team', teams[0]!.teamId];
    const out = await mailroom(args);
    t.equal(out.code, 0, out.stderr);
    const printed = JSON.parse(out.stdout);
    t.match(printed, { object: 'domain', name: 'cli.example.test', managed: true, status: 'verified' });
    const spf = (printed.records as Array<{ record: string; type: string; name: string; value: string }>).find(
      (r) => r.record === 'SPF' && r.type === 'TXT',
    )!;
    t.same(await bind.txt(`${spf.name}.example.test`), [spf.value]);
  });
}
