import type { Config } from './config.schema.js';

export const REGIONS = ['us-east-1', 'eu-west-1', 'sa-east-1', 'ap-northeast-1'] as const;
export type EgressRegion = (typeof REGIONS)[number];

/** One egress address of a region's pool, with the HELO name it announces and its share of mail. */
export type EgressAddress = { address: string; helo: string; weight: number };

/**
 * The configured IP pools as lookup maps, built once (zone-mta's way): plain strings get the
 * MTA host name as HELO and weight 1.
 */
export function egressPools(config: Config): Record<EgressRegion, EgressAddress[]> {
  const pools = {} as Record<EgressRegion, EgressAddress[]>;
  for (const region of REGIONS) {
    pools[region] = config.mta.regions[region].ips.map((entry) =>
      typeof entry === 'string'
        ? { address: entry, helo: config.mta.hostname, weight: 1 }
        : { address: entry.address, helo: entry.helo ?? config.mta.hostname, weight: entry.weight },
    );
  }
  return pools;
}
