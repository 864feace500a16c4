import { readFileSync } from 'node:fs';
import type { TlsResultSink } from '../../../core/sending/tls-reports/tls-result.types.js';
import type { Config } from '../../../lib/config/config.schema.js';
import type { DnsLookup } from '../../../lib/dns/dns-resolver.js';
import type { KeyValueStore } from '../../../lib/kv/kv.js';
import type { Logger } from '../../../lib/logger.js';
import { MtaStsCache } from './mta-sts-cache.js';
import { createStsFetcher } from './mta-sts-fetcher.js';
import { TlsPolicyResolver } from './tls-policy.js';
import { createTlsaLookup } from './tlsa-lookup.js';

/** The outbound TLS policy as configured (`mta.mtaSts`, `mta.dane`); null when both are off. */
export function createTlsPolicy(
  config: Config,
  deps: { lookup: DnsLookup; kv?: KeyValueStore; logger: Logger; ca?: string },
): TlsPolicyResolver | null {
  const { mtaSts, dane } = config.mta;
  if (!mtaSts.enabled && dane.resolvers.length === 0) return null;
  const cache = mtaSts.enabled
    ? new MtaStsCache({
        lookup: deps.lookup,
        kv: deps.kv,
        logger: deps.logger,
        fetch: createStsFetcher({
          lookup: deps.lookup,
          port: mtaSts.port,
          timeoutMs: mtaSts.fetchTimeoutMs,
          ca: deps.ca,
        }),
      })
    : null;
  return new TlsPolicyResolver({
    stsState: cache ? (domain) => cache.stateOf(domain) : null,
    tlsa: dane.resolvers.length > 0 ? createTlsaLookup({ resolvers: dane.resolvers, timeoutMs: dane.timeoutMs }) : null,
  });
}

/**
 * The DestinationDelivery dependencies for outbound TLS, from the process runtime: the policy
 * as configured, and the TLS result sink when the runtime carries one (`runtime.tlsResults`,
 * set by whoever builds the RFC 8460 reporting).
 */
export function outboundTls(
  runtime: { config: Config; kv?: KeyValueStore; logger: Logger; tlsResults?: TlsResultSink },
  lookup: DnsLookup,
): { tlsPolicy: TlsPolicyResolver | null; tlsResults?: TlsResultSink } {
  const { config, kv, logger } = runtime;
  const ca = config.mta.tlsCaFile ? readFileSync(config.mta.tlsCaFile, 'utf8') : undefined;
  return {
    tlsPolicy: createTlsPolicy(config, { lookup, kv, logger, ca }),
    ...(runtime.tlsResults ? { tlsResults: runtime.tlsResults } : {}),
  };
}
