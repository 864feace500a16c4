import type { Knex } from 'knex';
import type { Clock } from '../../../lib/clock.js';
import type { Config } from '../../../lib/config/config.schema.js';
import { egressPools, REGIONS } from '../../../lib/config/egress-pools.js';
import { dmarcRecordValue } from '../../sending/domains/dmarc-record.js';
import type { DomainService } from '../../sending/domains/domain.service.js';
import { recordTargets } from '../../sending/domains/record-targets.js';
import { DmarcReportRepository } from './dmarc-report.repository.js';
import { DmarcReportService } from './dmarc-report.service.js';

/** Our egress addresses, as a report names them (IPv6 lower-cased; reports do not zero-pad). */
function egressAddresses(config: Config): Set<string> {
  const pools = egressPools(config);
  return new Set(REGIONS.flatMap((region) => pools[region].map((entry) => entry.address.toLowerCase())));
}

/** The DMARC aggregate report service, configured from config.dmarcReports. */
export function createDmarcReportService(deps: {
  knex: Knex;
  clock: Clock;
  config: Config;
  domains: Pick<DomainService, 'get'>;
}): DmarcReportService {
  const { dmarcReports } = deps.config;
  const ours = egressAddresses(deps.config);
  const targets = recordTargets(deps.config);
  return new DmarcReportService({
    repository: new DmarcReportRepository(deps.knex),
    clock: deps.clock,
    limits: {
      maxReportBytes: dmarcReports.maxReportBytes,
      maxXmlBytes: dmarcReports.maxXmlBytes,
      maxRecords: dmarcReports.maxRecords,
    },
    retentionDays: dmarcReports.retentionDays,
    domainOf: async (teamId, domainId) => ({ id: (await deps.domains.get(teamId, domainId)).domain.id }),
    isOurAddress: (ip) => ours.has(ip.toLowerCase()),
    recordValue: (domain) => dmarcRecordValue(domain, targets),
  });
}
