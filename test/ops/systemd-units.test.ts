import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';

/**
 * The systemd units: one per process and a target that wants them all, each hardened, the
 * capability to bind a privileged port only where a port below 1024 is bound (25, 465, 587),
 * each accepted by `systemd-analyze verify` and rated OK by its offline security analysis
 * where systemd-analyze is installed.
 */
const run = promisify(execFile);
const dir = join(import.meta.dirname, '..', '..', 'systemd');
const units = readdirSync(dir).filter((name) => name.endsWith('.service'));
const PROCESSES = ['api', 'inbound', 'mta', 'scheduler', 'submission'];
const BINDS_PRIVILEGED_PORT = new Set(['mailroom-inbound.service', 'mailroom-submission.service']);
const HARDENING = [
  'NoNewPrivileges=true',
  'ProtectSystem=strict',
  'ReadWritePaths=/var/lib/mailroom',
  'PrivateTmp=true',
  'ProtectHome=true',
  'Restart=on-failure',
  'LimitNOFILE=65536',
  'SystemCallFilter=@system-service',
];
const analyzer = await run('systemd-analyze', ['--version']).then(
  () => true,
  () => false,
);

t.same(units.sort(), PROCESSES.map((name) => `mailroom-${name}.service`).sort(), 'one unit per process');

t.test('each unit serves its metrics on a port of its own', async (t) => {
  const ports = units.map(
    (unit) => /^Environment=MAILROOM_METRICS_PORT=(\d+)$/m.exec(readFileSync(join(dir, unit), 'utf8'))?.[1],
  );
  t.ok(ports.every(Boolean), 'every unit sets MAILROOM_METRICS_PORT');
  t.equal(new Set(ports).size, units.length, 'no two units share one');
});

t.test('the target wants every unit', async (t) => {
  const target = readFileSync(join(dir, 'mailroom.target'), 'utf8');
  const wants = /^Wants=(.*)$/m.exec(target)?.[1]?.split(/\s+/) ?? [];
  t.same(wants.sort(), [...units].sort());
});

for (const unit of units) {
  t.test(unit, async (t) => {
    const text = readFileSync(join(dir, unit), 'utf8');
    for (const line of HARDENING) t.match(text, new RegExp(`^${line}$`, 'm'), line);
    const bounding = /^CapabilityBoundingSet=(.*)$/m.exec(text)?.[1];
    if (BINDS_PRIVILEGED_PORT.has(unit)) {
      t.equal(bounding, 'CAP_NET_BIND_SERVICE', 'only the capability to bind its port');
      t.match(text, /^AmbientCapabilities=CAP_NET_BIND_SERVICE$/m);
    } else t.equal(bounding, '', 'no capabilities');
    t.match(text, new RegExp(`^ExecStart=/usr/bin/node /opt/mailroom/bin/mailroom\\.js ${unit.slice(9, -8)}$`, 'm'));
    if (!analyzer) {
      t.comment('systemd-analyze is not installed here: verify and security analysis skipped');
      return;
    }
    const verify = await run('systemd-analyze', ['verify', join(dir, unit)]).then(
      (out) => ({ ok: true, text: out.stderr }),
      (err: { stderr: string }) => ({ ok: false, text: err.stderr }),
    );
    t.ok(verify.ok, `systemd-analyze verify ${verify.text}`);
    const security = await run('systemd-analyze', ['security', '--offline=yes', join(dir, unit)]).catch(
      (err: { stdout: string }) => ({ stdout: err.stdout }),
    );
    const exposure = Number(/Overall exposure level for \S+: ([\d.]+)/.exec(security.stdout)?.[1]);
    t.ok(exposure <= 2.5, `exposure ${exposure} (systemd rates up to 2.9 "OK")`);
  });
}
