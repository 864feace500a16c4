import type { Config } from '../../../lib/config/config.schema.js';
import { egressPools } from '../../../lib/config/egress-pools.js';
import type { RecordTargets } from './domain-records.js';
import { tlsRptRuaAddress } from '../tls-reports/tlsrpt-record.js';

/**
 * Where this appliance's records point, from the configuration: the domain service publishes
 * them, `mailroom doctor` and `mailroom dns-zone` check and print the same.
 */
export function recordTargets(config: Config): RecordTargets {
  return {
    mtaHostname: config.mta.hostname.toLowerCase(),
    inboundMxHost: config.inbound.mxHost.toLowerCase(),
    trackingHost: config.tracking.host.toLowerCase(),
    dmarcReportLocalPart: config.dmarcReports.localPart,
    regionIps: Object.fromEntries(
      Object.entries(egressPools(config)).map(([region, pool]) => [region, pool.map((ip) => ip.address)]),
    ) as RecordTargets['regionIps'],
    tlsRptRua: tlsRptRuaAddress(config),
  };
}
