import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type IssuedCertificate = { key: string; cert: string; certFile: string; keyFile: string };

/**
 * A throw-away certificate authority (openssl): a self-signed CA, and leaf certificates it
 * signs for given names, for TLS servers in tests that the code under test must trust through
 * a CA file (`caFile`), as it would trust a public CA.
 */
export class TestCa {
  readonly caFile: string;
  private readonly caKeyFile: string;
  private serial = 1;

  private constructor(private readonly dir: string) {
    this.caFile = join(dir, 'ca.pem');
    this.caKeyFile = join(dir, 'ca.key');
    openssl([
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=Mailroom Test CA',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
      '-keyout',
      this.caKeyFile,
      '-out',
      this.caFile,
    ]);
  }

  static create(): TestCa {
    return new TestCa(mkdtempSync(join(tmpdir(), 'mailroom-ca-')));
  }

  get caPem(): string {
    return readFileSync(this.caFile, 'utf8');
  }

  /** A leaf certificate for `names` (DNS names), signed by this CA; `selfSigned` makes one it did not sign. */
  issue(names: string[], options: { selfSigned?: boolean } = {}): IssuedCertificate {
    const id = this.serial++;
    const keyFile = join(this.dir, `leaf-${id}.key`);
    const certFile = join(this.dir, `leaf-${id}.pem`);
    const extFile = join(this.dir, `leaf-${id}.ext`);
    const san = `subjectAltName=${names.map((n) => `DNS:${n}`).join(',')}`;
    writeFileSync(extFile, `${san}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`);
    if (options.selfSigned) {
      openssl([
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        `/CN=${names[0]}`,
        '-addext',
        san,
        '-keyout',
        keyFile,
        '-out',
        certFile,
      ]);
    } else {
      const csrFile = join(this.dir, `leaf-${id}.csr`);
      openssl([
        'req',
        '-new',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-subj',
        `/CN=${names[0]}`,
        '-keyout',
        keyFile,
        '-out',
        csrFile,
      ]);
      openssl([
        'x509',
        '-req',
        '-in',
        csrFile,
        '-CA',
        this.caFile,
        '-CAkey',
        this.caKeyFile,
        '-set_serial',
        String(1000 + id),
        '-days',
        '1',
        '-extfile',
        extFile,
        '-out',
        certFile,
      ]);
    }
    return { keyFile, certFile, key: readFileSync(keyFile, 'utf8'), cert: readFileSync(certFile, 'utf8') };
  }
}

function openssl(args: string[]): void {
  execFileSync('openssl', args, { stdio: 'ignore' });
}
