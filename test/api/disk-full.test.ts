import { execFileSync } from 'node:child_process';
import { mkdtempSync, openSync, rmSync, rmdirSync, writeSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { errorShape, request } from '../helpers/http.js';
import { TestDnsServer } from '../helpers/dns-server.js';
import { startTestApp } from '../helpers/test-app.js';
import { addVerifiedDomain } from '../helpers/verified-domain.js';

/**
 * The spool's disk full: a send is refused with 503 service_unavailable (retry later; nothing
 * was accepted), and once there is room again sends are accepted and every stored message reads
 * back whole. The data directory is a small tmpfs of its own (mounting needs root, as on the
 * development machines and CI; elsewhere the test is skipped).
 */
const mountDir = mkdtempSync(join(tmpdir(), 'mailroom-full-'));
let mounted = false;
try {
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', mountDir], { stdio: 'ignore' });
  mounted = true;
} catch {
  // not allowed here
}
t.teardown(() => {
  if (mounted) execFileSync('umount', [mountDir]);
  rmdirSync(mountDir);
});

/** Fills the file system until it refuses more; the filler's path. */
function fill(dir: string): string {
  const path = join(dir, 'filler');
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(64 * 1024, 1);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    closeSync(fd);
  }
  return path;
}

t.test(
  'a full spool disk: 503, then sends again once there is room',
  { skip: mounted ? false : 'mounting a tmpfs needs root' },
  async (t) => {
    const dns = await TestDnsServer.start();
    const app = await startTestApp({ env: { MAILROOM_DNS_SERVERS: dns.address, MAILROOM_DATA_DIR: mountDir } });
    t.teardown(async () => {
      await app.close();
      await dns.close();
    });
    const team = await app.createTeam('Full', 'unlimited');
    await app.runtime.services.teams.setTier(team.teamId, 2);
    await addVerifiedDomain(app, dns, team.token, 'full.test');
    const send = (text: string) =>
      request(app.url, '/emails', {
        method: 'POST',
        token: team.token,
        body: { from: 'a@full.test', to: 'b@example.net', subject: 's', text },
      });

    const before = await send('written before the disk filled up');
    t.equal(before.status, 200);
    const filler = fill(mountDir);
    const refused = await send('x'.repeat(200_000));
    errorShape(t, refused, 503, 'service_unavailable');
    t.match(refused.body.message, /retry/);

    rmSync(filler);
    const after = await send('written once there was room again');
    t.equal(after.status, 200, 'accepted again');
    for (const [res, text] of [
      [before, 'written before the disk filled up'],
      [after, 'written once there was room again'],
    ] as const) {
      const got = await request(app.url, `/emails/${res.body.id}`, { token: team.token });
      t.equal(got.body.text, text, 'the stored message reads back whole');
    }
  },
);
