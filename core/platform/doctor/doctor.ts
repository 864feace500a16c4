import { recordTargets } from '../../sending/domains/record-targets.js';
import { DomainRepository } from '../../sending/domains/domain.repository.js';
import type { Domain } from '../../sending/domains/domain.types.js';
import { checkDnsbl, checkPtr, egressAddresses } from './dns-checks.js';
import { checkDomainDns } from './domain-checks.js';
import { checkGalera } from './galera-checks.js';
import { result, type CheckResult, type DoctorDeps } from './doctor.types.js';
import { checkCertificate, checkClockSkew, checkDurability, checkMasterKey } from './local-checks.js';
import { checkImplicitTls, checkStarttls } from './submission-checks.js';

/** Domains whose records the doctor checks: those verification has passed (fully or in part). */
const CHECKED_STATUSES = ['verified', 'partially_verified'];

/**
 * Every check of `mailroom doctor`, in a stable order: this node (master key, certificates, the
 * submission server as a client meets it, database and, on a Galera member, the cluster), then
 * each egress address (reverse DNS, block lists), then each verified domain (SPF, DKIM, DMARC for
 * sending; MX for receiving). DNS goes through the injected resolver.
 */
export async function runDoctor(deps: DoctorDeps): Promise<CheckResult[]> {
  const { config, lookup, ptr, db } = deps;
  const now = deps.now();
  const results: CheckResult[] = [
    checkMasterKey(config),
    checkCertificate('inbound', config.inbound, now, config.inbound.mxHost),
    checkCertificate('submission', config.submission, now),
  ];
  if (deps.submission) {
    const timeoutMs = deps.smtpTimeoutMs ?? 5000;
    const [starttls, implicit] = await Promise.all([
      checkStarttls(config.submission, deps.submission, timeoutMs),
      checkImplicitTls(config.submission, deps.submission, timeoutMs),
    ]);
    results.push(starttls, ...(implicit ? [implicit] : []));
  }
  let domains: Array<{ domain: Domain; keys: Awaited<ReturnType<DomainRepository['keysOf']>> }> | undefined;
  if (!db) results.push(result('database', 'database', 'fail', deps.dbProblem ?? 'the database could not be opened'));
  else {
    try {
      results.push(await checkDurability(db), await checkClockSkew(db, deps.now), ...(await checkGalera(db)));
      const repository = new DomainRepository(db.knex);
      const rows = (await db
        .knex('domains')
        .select('id')
        .whereIn('status', CHECKED_STATUSES)
        .orderBy(['name', 'id'])) as Array<{ id: string }>;
      domains = [];
      for (const { id } of rows) {
        const domain = await repository.findById(id);
        if (domain) domains.push({ domain, keys: await repository.keysOf(id) });
      }
    } catch (err) {
      results.push(result('database', 'database', 'fail', `cannot read the database: ${(err as Error).message}`));
    }
  }

  const egress = egressAddresses(config);
  results.push(...(await Promise.all(egress.map((entry) => checkPtr(lookup, ptr, entry)))));
  if (deps.dnsblZones.length > 0)
    results.push(...(await Promise.all(egress.map((entry) => checkDnsbl(lookup, entry.address, deps.dnsblZones)))));

  const targets = recordTargets(config);
  const perDomain = await Promise.all(
    (domains ?? []).map(({ domain, keys }) => checkDomainDns(lookup, domain, keys, targets)),
  );
  results.push(...perDomain.flat());
  if (domains && domains.length === 0)
    results.push(result('domains', 'domains', 'ok', 'no verified domain yet: nothing to check in DNS'));
  return results;
}

/** 1 when any check failed; warnings alone do not fail. */
export const exitCodeOf = (results: CheckResult[]) => (results.some((entry) => entry.status === 'fail') ? 1 : 0);

/** One line per check: `ok   check  subject: detail`. */
export function formatResults(results: CheckResult[]): string {
  const width = Math.max(...results.map((entry) => entry.check.length));
  const lines = results.map(
    (entry) => `${entry.status.padEnd(4)} ${entry.check.padEnd(width)}  ${entry.subject}: ${entry.detail}`,
  );
  const count = (status: string) => results.filter((entry) => entry.status === status).length;
  lines.push(`${count('ok')} ok, ${count('warn')} warnings, ${count('fail')} failures`);
  return `${lines.join('\n')}\n`;
}
