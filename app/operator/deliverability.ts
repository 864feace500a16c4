import type { Knex } from 'knex';
import { checkDnsbl, checkPtr, egressAddresses } from '../../core/platform/doctor/dns-checks.js';
import { checkDomainDns } from '../../core/platform/doctor/domain-checks.js';
import { wasUnanswered, type CheckResult, type PtrLookup } from '../../core/platform/doctor/doctor.types.js';
import { fixFor } from '../../core/platform/doctor/health-fixes.js';
import { checkCertificate, checkMasterKey } from '../../core/platform/doctor/local-checks.js';
import { expectedRecords } from '../../core/sending/domains/domain-records.js';
import { DomainRepository } from '../../core/sending/domains/domain.repository.js';
import { recordTargets } from '../../core/sending/domains/record-targets.js';
import type { Config } from '../../lib/config/config.schema.js';
import type { DnsLookup } from '../../lib/dns/dns-resolver.js';

/** Domains whose records are checked: those verification has passed (fully or in part), as `mailroom doctor`. */
const CHECKED_STATUSES = ['verified', 'partially_verified'];

export type DeliverabilityCheck = CheckResult & { subjectKind: 'ip' | 'domain' | 'system'; fix: string | null };

/** What to do about an egress address's failed check, in one sentence a person can follow. */
function ipFix(entry: CheckResult, helos: string[]): string | null {
  if (entry.status === 'ok') return null;
  if (wasUnanswered(entry)) return 'Check again in a few minutes: the DNS look-up got no answer, so nothing was judged';
  if (entry.check === 'ptr')
    return `Ask the provider of ${entry.subject} to set its reverse DNS (PTR) to ${helos[0]}, and publish A/AAAA ${helos[0]} -> ${entry.subject}`;
  if (entry.check === 'dnsbl')
    return entry.status === 'warn'
      ? 'Query the block lists through a resolver of your own (dns.servers): public resolvers are refused'
      : `Take ${entry.subject} out of use (POST /admin/ip-pools/addresses/${entry.subject}/disable), find what sent the listed mail, then request delisting on each list's site`;
  return null;
}

/**
 * `mailroom doctor`'s deliverability checks in the API process: this node's master key and
 * certificates, each egress address (reverse DNS, block lists) and each verified domain (SPF,
 * DKIM, DMARC, MX), each failure with its fix. The checks that need a database handle of their
 * own (durability, clock skew) and the live submission probe stay with the CLI's doctor.
 */
export async function deliverabilityReport(deps: {
  knex: Knex;
  config: Config;
  lookup: DnsLookup;
  ptr: PtrLookup;
  now: Date;
  dnsblZones: readonly string[];
}): Promise<DeliverabilityCheck[]> {
  const { config, lookup, ptr, now } = deps;
  const checks: DeliverabilityCheck[] = [
    checkMasterKey(config),
    checkCertificate('inbound', config.inbound, now, config.inbound.mxHost),
    checkCertificate('submission', config.submission, now),
  ].map((entry) => ({ ...entry, subjectKind: 'system', fix: entry.status === 'ok' ? null : entry.detail }));

  for (const egress of egressAddresses(config)) {
    const found = [await checkPtr(lookup, ptr, egress)];
    if (deps.dnsblZones.length > 0) found.push(await checkDnsbl(lookup, egress.address, deps.dnsblZones));
    checks.push(...found.map((entry) => ({ ...entry, subjectKind: 'ip' as const, fix: ipFix(entry, egress.helos) })));
  }

  const repository = new DomainRepository(deps.knex);
  const targets = recordTargets(config);
  const rows = (await deps
    .knex('domains')
    .select('id')
    .whereIn('status', CHECKED_STATUSES)
    .orderBy(['name', 'id'])) as Array<{ id: string }>;
  for (const { id } of rows) {
    const domain = await repository.findById(id);
    if (!domain) continue;
    const keys = await repository.keysOf(id);
    const records = expectedRecords(domain, keys, targets);
    for (const entry of await checkDomainDns(lookup, domain, keys, targets))
      checks.push({ ...entry, subjectKind: 'domain', fix: fixFor(entry, domain, records) ?? null });
  }
  return checks;
}

/** The block-list look-ups of each egress address, one row per address and zone. */
export async function blocklistListings(deps: {
  config: Config;
  lookup: DnsLookup;
  dnsblZones: readonly string[];
}): Promise<Array<{ address: string; zone: string; status: CheckResult['status']; listed: boolean; detail: string }>> {
  const rows = [];
  for (const { address } of egressAddresses(deps.config))
    for (const zone of deps.dnsblZones) {
      const entry = await checkDnsbl(deps.lookup, address, [zone]);
      rows.push({ address, zone, status: entry.status, listed: entry.status === 'fail', detail: entry.detail });
    }
  return rows;
}
