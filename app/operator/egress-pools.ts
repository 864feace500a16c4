import type { Config } from '../../lib/config/config.schema.js';
import { egressPools, REGIONS, type EgressAddress, type EgressRegion } from '../../lib/config/egress-pools.js';
import { ValidationError } from '../../lib/errors.js';
import { ALL_DESTINATIONS } from '../../core/sending/deliveries/egress-block.repository.js';
import type { EgressBlockView } from '../../core/sending/deliveries/queue-inspection.js';

export type PooledAddress = EgressAddress & { region: EgressRegion };

/** Every pool address of every region (an address in two regions appears twice). */
export function pooledAddresses(config: Config): PooledAddress[] {
  const pools = egressPools(config);
  return REGIONS.flatMap((region) => pools[region].map((entry) => ({ ...entry, region })));
}

/**
 * The configured spelling of `address`, or a refusal: a block on an address no pool uses would
 * change nothing, and is most likely a typo of one that should have been taken out.
 */
export function requirePooled(config: Config, address: string): { address: string; regions: EgressRegion[] } {
  const wanted = address.trim().toLowerCase();
  const matches = pooledAddresses(config).filter((entry) => entry.address.toLowerCase() === wanted);
  if (matches.length === 0) {
    const known = [...new Set(pooledAddresses(config).map((entry) => entry.address))].join(', ');
    throw new ValidationError(
      `${address} is in no IP pool (configured egress addresses: ${known}); see mta.regions in the configuration`,
    );
  }
  return { address: matches[0]!.address, regions: matches.map((entry) => entry.region) };
}

/** One pool address as `mailroom ip list` and GET /admin/ip-pools show it. */
export type AddressState = PooledAddress & {
  inUse: boolean;
  disabledInConfig: boolean;
  disabledByOperator: { reason: string | null; since: Date } | null;
  rests: EgressBlockView[];
};

/** Whether each pool address is in use, and which destinations it rests from, given the active blocks. */
export function addressStates(config: Config, blocks: EgressBlockView[]): AddressState[] {
  const configDisabled = new Set(config.mta.disabledIps.map((ip) => ip.toLowerCase()));
  return pooledAddresses(config).map((entry) => {
    const own = blocks.filter((b) => b.egressIp.toLowerCase() === entry.address.toLowerCase());
    const operator = own.find((b) => b.destination === ALL_DESTINATIONS);
    const disabledInConfig = configDisabled.has(entry.address.toLowerCase());
    return {
      ...entry,
      inUse: !disabledInConfig && !operator,
      disabledInConfig,
      disabledByOperator: operator ? { reason: operator.reason, since: operator.since } : null,
      rests: own.filter((b) => b.destination !== ALL_DESTINATIONS),
    };
  });
}
