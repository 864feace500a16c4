import type { Clock } from '../../../lib/clock.js';
import type { DnsLookup } from '../../../lib/dns/dns-resolver.js';
import { expectedRecords, type RecordTargets } from '../../sending/domains/domain-records.js';
import type { DomainService } from '../../sending/domains/domain.service.js';
import type { DkimKey, Domain } from '../../sending/domains/domain.types.js';
import { checkDomainHealth } from './domain-checks.js';
import type { CheckResult } from './doctor.types.js';
import { fixFor } from './health-fixes.js';
import { dmarcRecordValue } from '../../sending/domains/dmarc-record.js';

export type HealthStatus = 'pass' | 'warn' | 'fail';

/** One check as the health page shows it: a stable id, a label, the outcome, and what to do. */
export type HealthCheck = { id: string; label: string; status: HealthStatus; detail: string; fix?: string };

export type DomainHealth = { domain: Domain; checkedAt: Date; status: HealthStatus; checks: HealthCheck[] };

const LABELS: Record<string, string> = {
  spf: 'SPF',
  return_path_mx: 'Return-path MX',
  dmarc: 'DMARC',
  tlsrpt: 'TLS reporting',
  mx: 'Receiving MX',
  tracking: 'Tracking CNAME',
};
const STATUS: Record<CheckResult['status'], HealthStatus> = { ok: 'pass', warn: 'warn', fail: 'fail' };

/** The doctor's `check` names, made ids a client can key on (one per DKIM key: its selector). */
function idAndLabel(entry: CheckResult, domain: Domain): { id: string; label: string } {
  if (entry.check === 'dkim') {
    // The subject is `<selector>._domainkey.<name>`, or the domain itself when it has no active key.
    const selector = entry.subject === domain.name ? undefined : entry.subject.split('.')[0];
    return selector ? { id: `dkim:${selector}`, label: `DKIM (${selector})` } : { id: 'dkim', label: 'DKIM' };
  }
  if (entry.check === 'mx') return { id: 'receiving_mx', label: LABELS.mx! };
  return { id: entry.check, label: LABELS[entry.check] ?? entry.check };
}

const worst = (checks: HealthCheck[]): HealthStatus =>
  checks.some((c) => c.status === 'fail') ? 'fail' : checks.some((c) => c.status === 'warn') ? 'warn' : 'pass';

/**
 * `GET /domains/{id}/health`: the checks `mailroom doctor` makes of one domain, run now against
 * DNS through the appliance's resolver (nothing stored: verification keeps its own state).
 */
export class DomainHealthService {
  constructor(
    private readonly deps: {
      lookup: DnsLookup;
      targets: RecordTargets;
      clock: Clock;
      /** The team's domain and its DKIM keys (404 for another team's, as every domain route). */
      find: (teamId: string, id: string) => Promise<{ domain: Domain; keys: DkimKey[] }>;
    },
  ) {}

  async check(teamId: string, id: string): Promise<DomainHealth> {
    const { domain, keys } = await this.deps.find(teamId, id);
    const checkedAt = this.deps.clock.now();
    const results = await checkDomainHealth(this.deps.lookup, domain, keys, this.deps.targets);
    const records = expectedRecords(domain, keys, this.deps.targets);
    const checks = results.map((entry): HealthCheck => {
      const fix = fixFor(entry, domain, records, dmarcRecordValue(domain, this.deps.targets));
      return {
        ...idAndLabel(entry, domain),
        status: STATUS[entry.status],
        detail: entry.detail,
        ...(fix ? { fix } : {}),
      };
    });
    return { domain, checkedAt, status: worst(checks), checks };
  }
}

/** Built where both groups exist (app/services.ts): the doctor reads the sending group's domains. */
export function createDomainHealth(
  infra: { lookup: DnsLookup; targets: RecordTargets; clock: Clock },
  domains: Pick<DomainService, 'get' | 'repository'>,
): DomainHealthService {
  return new DomainHealthService({
    ...infra,
    find: async (teamId, id) => {
      const { domain } = await domains.get(teamId, id);
      return { domain, keys: await domains.repository.keysOf(domain.id) };
    },
  });
}
