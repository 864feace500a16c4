import { createPrivateKey, X509Certificate } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { durabilityWarnings } from '../../../db/dialect.js';
import type { Database } from '../../../db/connection.js';
import type { Config } from '../../../lib/config/config.schema.js';
import { result, type CheckResult } from './doctor.types.js';

const DAY_MS = 24 * 3600 * 1000;
/** A certificate expiring sooner than this is a warning. */
export const CERT_WARN_DAYS = 14;
/** Clock skew against the database server: a warning above, a failure above. */
export const SKEW_WARN_MS = 1000;
export const SKEW_FAIL_MS = 30_000;

/** The master key encrypts secrets at rest: configured, or (outside production) the generated development key. */
export function checkMasterKey(config: Config): CheckResult {
  if (config.masterKey) return result('master_key', 'masterKey', 'ok', 'configured (MAILROOM_MASTER_KEY or masterKey)');
  if (config.env === 'production')
    return result('master_key', 'masterKey', 'fail', 'not configured: a production node refuses to start without it');
  const path = join(resolve(config.dataDir), 'master.key');
  return existsSync(path)
    ? result(
        'master_key',
        'masterKey',
        'warn',
        `not configured: the generated development key ${path} is used; set MAILROOM_MASTER_KEY in production`,
      )
    : result(
        'master_key',
        'masterKey',
        'warn',
        `not configured: a development key will be generated at ${path} on first start; set MAILROOM_MASTER_KEY in production`,
      );
}

/**
 * The certificate a port offers, read from its file: expired or not yet valid fails, under 14
 * days left warns; the key file must hold its private key; for the inbound MX the certificate
 * should name the MX host. No certificate configured is a warning: the MX then offers no
 * STARTTLS, and submission offers it with smtp-server's built-in certificate (a published key).
 */
export function checkCertificate(
  port: 'inbound' | 'submission',
  files: { certFile?: string; keyFile?: string },
  now: Date,
  hostName?: string,
): CheckResult {
  const check = `${port}_certificate`;
  if (!files.certFile)
    return result(
      check,
      `${port}.certFile`,
      'warn',
      port === 'inbound'
        ? 'no certificate configured: the MX offers no STARTTLS and receives in plain text'
        : "no certificate configured: STARTTLS uses smtp-server's built-in certificate, whose private key is public (clients that verify refuse it), and the implicit-TLS port stays closed: set submission.certFile and submission.keyFile",
    );
  const subject = files.certFile;
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(readFileSync(files.certFile));
  } catch (err) {
    return result(check, subject, 'fail', `cannot read the certificate: ${(err as Error).message}`);
  }
  const validTo = new Date(cert.validTo);
  const validFrom = new Date(cert.validFrom);
  const left = validTo.getTime() - now.getTime();
  const problems: Array<{ status: 'warn' | 'fail'; text: string }> = [];
  if (left <= 0) problems.push({ status: 'fail', text: `expired on ${validTo.toISOString()}` });
  else if (validFrom.getTime() > now.getTime())
    problems.push({ status: 'fail', text: `not valid before ${validFrom.toISOString()}` });
  else if (left < CERT_WARN_DAYS * DAY_MS)
    problems.push({
      status: 'warn',
      text: `expires in ${(left / DAY_MS).toFixed(1)} days (${validTo.toISOString()}): renew it`,
    });
  if (files.keyFile) {
    try {
      if (!cert.checkPrivateKey(createPrivateKey(readFileSync(files.keyFile))))
        problems.push({ status: 'fail', text: `${files.keyFile} is not the key of this certificate` });
    } catch (err) {
      problems.push({ status: 'fail', text: `cannot read the key ${files.keyFile}: ${(err as Error).message}` });
    }
  } else problems.push({ status: 'fail', text: `${port}.keyFile is not configured` });
  if (hostName && !cert.checkHost(hostName)) problems.push({ status: 'warn', text: `does not name ${hostName}` });
  if (problems.length === 0)
    return result(check, subject, 'ok', `valid until ${validTo.toISOString()} (${Math.floor(left / DAY_MS)} days)`);
  const status = problems.some((problem) => problem.status === 'fail') ? 'fail' : 'warn';
  return result(check, subject, status, problems.map((problem) => problem.text).join('; '));
}

/** MySQL must flush every commit (db/dialect.ts); SQLite runs with synchronous=FULL always. */
export async function checkDurability(db: Database): Promise<CheckResult> {
  if (db.dialect !== 'mysql') return result('durability', 'database', 'ok', 'SQLite with WAL and synchronous=FULL');
  const warnings = await durabilityWarnings(db.knex, db.dialect);
  return warnings.length === 0
    ? result('durability', 'database', 'ok', 'innodb_flush_log_at_trx_commit is 1')
    : result('durability', 'database', 'fail', warnings.join(' '));
}

/**
 * This node's clock against the MySQL server's, the one other clock reachable without the
 * internet (nodes sharing a database must agree: leases, schedules, DKIM timestamps). SQLite
 * shares this machine's clock, so there is nothing to compare.
 */
export async function checkClockSkew(db: Database, now: () => Date): Promise<CheckResult> {
  if (db.dialect !== 'mysql')
    return result(
      'clock_skew',
      'clock',
      'ok',
      'not measured: SQLite runs on this machine clock (no NTP check offline)',
    );
  const before = now().getTime();
  const [rows] = (await db.knex.raw('SELECT UNIX_TIMESTAMP(NOW(6)) AS t')) as [Array<{ t: string | number }>];
  const after = now().getTime();
  const server = Number(rows[0]?.t) * 1000;
  const skew = server - (before + after) / 2;
  const slack = (after - before) / 2;
  const size = Math.max(0, Math.abs(skew) - slack);
  const detail = `this clock is ${(Math.abs(skew) / 1000).toFixed(3)} s ${skew > 0 ? 'behind' : 'ahead of'} the database server's (±${(slack / 1000).toFixed(3)} s)`;
  if (size > SKEW_FAIL_MS) return result('clock_skew', 'clock', 'fail', `${detail}: synchronize the clocks (NTP)`);
  if (size > SKEW_WARN_MS) return result('clock_skew', 'clock', 'warn', `${detail}: synchronize the clocks (NTP)`);
  return result('clock_skew', 'clock', 'ok', detail);
}
