import { readFileSync } from 'node:fs';
import type { Knex } from 'knex';
import type { Clock } from '../../../lib/clock.js';
import type { Config } from '../../../lib/config/config.schema.js';
import type { DnsLookup } from '../../../lib/dns/dns-resolver.js';
import type { Logger } from '../../../lib/logger.js';
import { AddressPolicy } from '../../../lib/net/address-policy.js';
import type { TlsReportMail } from './report-delivery.js';
import { TlsReportLogRepository } from './tls-report-log.repository.js';
import { TlsReportService } from './tls-report.service.js';
import { TlsResultAggregator } from './tls-result-aggregator.js';
import { TlsResultRepository } from './tls-result.repository.js';
import { tlsRptRuaAddress } from './tlsrpt-record.js';

export type TlsReportInfrastructure = {
  knex: Knex;
  clock: Clock;
  config: Config;
  lookup: DnsLookup;
  logger: Logger;
  /** The appliance's own send path for mailto: reports; absent when no sender is configured. */
  sendMail?: (mail: TlsReportMail) => Promise<void>;
};

/**
 * SMTP TLS reporting (RFC 8460): the sink the MTA records its sessions into (`sink`), and the
 * daily report sender and retention (`reports`).
 */
export function createTlsReportServices(infra: TlsReportInfrastructure) {
  const { knex, clock, config, lookup, logger } = infra;
  const settings = config.tlsReports;
  const results = new TlsResultRepository(knex);
  const submitter = config.mta.hostname.toLowerCase();
  const caFile = settings.caFile ?? config.mta.tlsCaFile;
  return {
    /** The mailbox our own domains' TLSRPT records name (what `dns-zone` prints). */
    ruaAddress: tlsRptRuaAddress(config),
    sink: new TlsResultAggregator({ repository: results, clock, logger, flushMs: settings.flushSeconds * 1000 }),
    reports: new TlsReportService({
      results,
      log: new TlsReportLogRepository(knex),
      clock,
      lookup,
      logger,
      identity: {
        organizationName: settings.organizationName,
        contactInfo: settings.contactInfo ?? `postmaster@${submitter}`,
        submitter,
      },
      delivery: {
        lookup,
        policy: new AddressPolicy(settings.allowAddresses),
        // Unset: the CAs the MTA trusts beside the public ones (mta.tlsCaFile), if any.
        ca: caFile ? readFileSync(caFile, 'utf8') : undefined,
        timeoutMs: 30_000,
        sendMail: infra.sendMail,
      },
      enabled: settings.enabled,
      retentionDays: settings.retentionDays,
    }),
  };
}

export type TlsReportServices = ReturnType<typeof createTlsReportServices>;
