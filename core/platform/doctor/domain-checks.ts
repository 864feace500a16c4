import type { DnsLookup } from '../../../lib/dns/dns-resolver.js';
import type { RecordTargets } from '../../sending/domains/domain-records.js';
import type { DkimKey, Domain } from '../../sending/domains/domain.types.js';
import { checkDkim, checkDmarc, checkReceivingMx, checkSpf, checkTlsRpt } from './dns-checks.js';
import type { CheckResult } from './doctor.types.js';
import { checkReturnPathMx, checkTrackingCname } from './record-checks.js';

/**
 * The DNS checks `mailroom doctor` makes of one domain: SPF, DKIM, DMARC and TLSRPT when it sends, the
 * MX when it receives. One function, so the command and `GET /domains/{id}/health` cannot drift.
 */
export async function checkDomainDns(
  lookup: DnsLookup,
  domain: Domain,
  keys: DkimKey[],
  targets: RecordTargets,
): Promise<CheckResult[]> {
  const found: CheckResult[] = [];
  if (domain.sendingEnabled) {
    found.push(await checkSpf(lookup, domain, targets));
    found.push(...(await checkDkim(lookup, domain, keys, targets)));
    found.push(await checkDmarc(lookup, domain));
    found.push(await checkTlsRpt(lookup, domain, targets));
  }
  const mx = await checkReceivingMx(lookup, domain, targets);
  if (mx) found.push(mx);
  return found;
}

/**
 * Everything a domain's health page shows: the doctor's checks plus the records the doctor leaves
 * to verification (the return-path MX that brings bounces back, the tracking CNAME), each only
 * where its feature is on.
 */
export async function checkDomainHealth(
  lookup: DnsLookup,
  domain: Domain,
  keys: DkimKey[],
  targets: RecordTargets,
): Promise<CheckResult[]> {
  const [doctor, returnPath, tracking] = await Promise.all([
    checkDomainDns(lookup, domain, keys, targets),
    domain.sendingEnabled ? checkReturnPathMx(lookup, domain, targets) : undefined,
    domain.openTracking || domain.clickTracking ? checkTrackingCname(lookup, domain, targets) : undefined,
  ]);
  const results = [...doctor];
  // Beside SPF, which lives at the same name.
  const afterSpf = results.findIndex((entry) => entry.check === 'spf') + 1;
  if (returnPath) results.splice(afterSpf, 0, returnPath);
  if (tracking) results.push(tracking);
  return results;
}
