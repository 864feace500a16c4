import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A real BIND 9 (`named -g`) on a loopback port, authoritative for the zones a test declares,
 * each either open to DNS UPDATE signed with the test's TSIG key or closed to updates. Its
 * configuration, zone files and journals live in a temporary directory removed at close.
 */
export type BindZone = { name: string; allowUpdate: boolean };

export const NAMED = ['/usr/sbin/named', '/usr/bin/named'].find((path) => spawnSync(path, ['-v']).status === 0);

/** A port free on loopback now (named binds it for both UDP and TCP). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function namedConf(dir: string, port: number, keyName: string, secret: string, zones: BindZone[]): string {
  const zoneBlocks = zones.map(
    (zone) =>
      `zone "${zone.name}" { type primary; file "${join(dir, `${zone.name}.zone`)}"; ` +
      `allow-update { ${zone.allowUpdate ? `key "${keyName}";` : 'none;'} }; };`,
  );
  return [
    'options {',
    `  directory "${dir}";`,
    `  pid-file "${join(dir, 'named.pid')}";`,
    `  session-keyfile "${join(dir, 'session.key')}";`,
    `  listen-on port ${port} { 127.0.0.1; };`,
    '  listen-on-v6 { none; };',
    '  recursion no;',
    '  notify no;',
    '  dnssec-validation no;',
    '};',
    // No rndc channel: it would bind port 953, which parallel test files would fight over.
    'controls { };',
    `key "${keyName}" { algorithm hmac-sha256; secret "${secret}"; };`,
    ...zoneBlocks,
    '',
  ].join('\n');
}

const zoneFile = (zone: string) =>
  [
    '$TTL 300',
    `@ IN SOA ns1.${zone}. hostmaster.${zone}. 1 3600 600 86400 300`,
    `@ IN NS ns1.${zone}.`,
    'ns1 IN A 127.0.0.1',
    '',
  ].join('\n');

export class BindServer {
  readonly resolver = new Resolver({ timeout: 1000, tries: 1 });
  private stderr = '';

  private constructor(
    readonly dir: string,
    readonly port: number,
    readonly keyName: string,
    /** Base64 TSIG secret, as in the key file written to `keyFile`. */
    readonly secret: string,
    readonly keyFile: string,
    private readonly child: ChildProcess,
  ) {
    this.resolver.setServers([`127.0.0.1:${port}`]);
    child.stderr?.on('data', (chunk: Buffer) => (this.stderr = (this.stderr + chunk.toString()).slice(-8000)));
  }

  static async start(zones: BindZone[], keyName = 'mailroom-test.'): Promise<BindServer> {
    if (!NAMED) throw new Error('named is not installed (apt install bind9)');
    const dir = mkdtempSync(join(tmpdir(), 'mailroom-bind-'));
    const port = await freePort();
    const secret = randomBytes(32).toString('base64');
    for (const zone of zones) writeFileSync(join(dir, `${zone.name}.zone`), zoneFile(zone.name));
    const conf = join(dir, 'named.conf');
    writeFileSync(conf, namedConf(dir, port, keyName, secret, zones));
    // What `tsig-keygen` writes: Mailroom reads the secret out of this form too.
    const keyFile = join(dir, 'mailroom.key');
    writeFileSync(keyFile, `key "${keyName}" {\n\talgorithm hmac-sha256;\n\tsecret "${secret}";\n};\n`);
    // -g: foreground, logs to stderr; no -u: it runs as the user running the tests and owns the tmpdir.
    const child = spawn(NAMED, ['-g', '-c', conf], { stdio: ['ignore', 'ignore', 'pipe'] });
    // A test process that dies without its teardown must not leave named running.
    const orphanGuard = () => child.kill('SIGKILL');
    process.once('exit', orphanGuard);
    child.once('exit', () => process.off('exit', orphanGuard));
    const server = new BindServer(dir, port, keyName, secret, keyFile, child);
    await server.waitUntilAnswering(zones[0]!.name);
    return server;
  }

  /** The SOA of a served zone answers: named has loaded its zones and listens. */
  private async waitUntilAnswering(zone: string): Promise<void> {
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline) {
      if (this.child.exitCode !== null) throw new Error(`named exited (${this.child.exitCode}):\n${this.stderr}`);
      try {
        await this.resolver.resolveSoa(zone);
        return;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    throw new Error(`named did not answer on port ${this.port} within 15 s:\n${this.stderr}`);
  }

  /** `host:port` for MAILROOM_DNS_SERVERS: the appliance verifies against this server too. */
  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  /** TXT values at a name, each record's strings joined; [] when there are none. */
  async txt(name: string): Promise<string[]> {
    return this.resolver.resolveTxt(name).then(
      (records) => records.map((chunks) => chunks.join('')),
      () => [],
    );
  }

  async mx(name: string): Promise<Array<{ exchange: string; priority: number }>> {
    // Only the two fields (Node.js 24 adds `type: 'MX'` to each record).
    const records = await this.resolver.resolveMx(name).catch(() => []);
    return records.map(({ exchange, priority }) => ({ exchange, priority }));
  }

  async cname(name: string): Promise<string[]> {
    return this.resolver.resolveCname(name).catch(() => []);
  }

  async close(): Promise<void> {
    if (this.child.exitCode === null) {
      const exited = new Promise((resolve) => this.child.once('exit', resolve));
      this.child.kill('SIGTERM');
      await exited;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
