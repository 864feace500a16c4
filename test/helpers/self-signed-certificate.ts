import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * Writes a throw-away self-signed certificate (openssl, RSA 2048, valid `days` days, one by
 * default) into `dir` as key.pem and cert.pem, for TLS servers in tests; `subjectAltName` e.g.
 * 'DNS:files.test,IP:127.0.0.1'.
 */
export function writeSelfSignedCertificate(
  dir: string,
  commonName: string,
  subjectAltName?: string,
  days = 1,
): { keyFile: string; certFile: string } {
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  const altNames = subjectAltName ? ['-addext', `subjectAltName=${subjectAltName}`] : [];
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      String(days),
      '-subj',
      `/CN=${commonName}`,
      ...altNames,
    ].concat(['-keyout', keyFile, '-out', certFile]),
    { stdio: 'ignore' },
  );
  return { keyFile, certFile };
}
