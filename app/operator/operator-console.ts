import type { Knex } from 'knex';
import type { Readiness } from '../../core/platform/health/readiness.service.js';
import { createPtrLookup } from '../../core/platform/doctor/reverse-names.js';
import type { PtrLookup } from '../../core/platform/doctor/doctor.types.js';
import { checkPtr, egressAddresses } from '../../core/platform/doctor/dns-checks.js';
import type { PlatformSettings } from '../../core/platform/settings/platform-settings.js';
import type { DeliveryService } from '../../core/sending/deliveries/delivery.service.js';
import { ALL_DESTINATIONS } from '../../core/sending/deliveries/egress-block.repository.js';
import { QueueInspection } from '../../core/sending/deliveries/queue-inspection.js';
import type { Dialect } from '../../db/connection.js';
import type { Clock } from '../../lib/clock.js';
import type { Config } from '../../lib/config/config.schema.js';
import type { DnsLookup } from '../../lib/dns/dns-resolver.js';
import type { KeyValueStore } from '../../lib/kv/kv.js';
import { blocklistListings, deliverabilityReport } from './deliverability.js';
import { addressStates, requirePooled } from './egress-pools.js';
import { QueueViews } from './queue-views.js';
import { recentErrors, systemStatus } from './system-status.js';

export type OperatorConsoleDeps = {
  knex: Knex;
  dialect: Dialect;
  kv: KeyValueStore;
  clock: Clock;
  config: Config;
  version: string;
  lookup: DnsLookup;
  deliveries: DeliveryService;
  settings: PlatformSettings;
  readiness: () => Promise<Readiness>;
};

/**
 * What the admin API (/admin/...) reads and changes beyond the team services: the queue, the
 * egress pools, deliverability, the platform switches and the system. The same logic the CLI's
 * operator commands use (queue views, pool addresses), so both answer alike.
 */
export class OperatorConsole {
  readonly queue: QueueViews;
  private readonly ptr: PtrLookup;

  constructor(private readonly deps: OperatorConsoleDeps) {
    this.queue = new QueueViews(deps.knex, deps.deliveries);
    this.ptr = createPtrLookup({ servers: deps.config.dns.servers, timeoutMs: deps.config.dns.timeoutMs });
  }

  now(): Date {
    return this.deps.clock.now();
  }

  /** Every pool address with its state and rests; with `checkPtr`, its reverse DNS check too. */
  async ipPools(checkPtrs: boolean) {
    const now = this.now();
    const blocks = await new QueueInspection(this.deps.knex).activeBlocks(now);
    const states = addressStates(this.deps.config, blocks);
    const ptrs = new Map<string, { status: string; detail: string }>();
    if (checkPtrs)
      for (const egress of egressAddresses(this.deps.config)) {
        const found = await checkPtr(this.deps.lookup, this.ptr, egress);
        ptrs.set(egress.address, { status: found.status, detail: found.detail });
      }
    const regions = [...new Set(states.map((state) => state.region))];
    return regions.map((region) => ({
      region,
      addresses: states
        .filter((state) => state.region === region)
        .map((state) => ({
          address: state.address,
          helo: state.helo,
          weight: state.weight,
          in_use: state.inUse,
          disabled_in_config: state.disabledInConfig,
          disabled_by_operator: state.disabledByOperator
            ? { reason: state.disabledByOperator.reason, since: state.disabledByOperator.since.toISOString() }
            : null,
          ptr: ptrs.get(state.address) ?? null,
          rests: state.rests.map((rest) => ({
            destination: rest.destination,
            strikes: rest.strikes,
            until: rest.blockedUntil.toISOString(),
            reason: rest.reason,
          })),
        })),
    }));
  }

  /** The configured spelling of a pool address, or a ValidationError naming the pool addresses. */
  pooled(input: string) {
    return requirePooled(this.deps.config, input);
  }

  /** Takes an address out of every pool on every node until enabled (`mailroom ip disable`). */
  async disableAddress(input: string, reason: string) {
    const { address, regions } = requirePooled(this.deps.config, input);
    await this.deps.deliveries.blocks.disable(address, reason, this.now());
    return { address, regions, reason };
  }

  /** Undoes the disable, or with a destination ends the address's rest from it (`mailroom ip enable`). */
  async enableAddress(input: string, destination: string | undefined) {
    const { address, regions } = requirePooled(this.deps.config, input);
    const cleared = await this.deps.deliveries.blocks.clear(address, destination ?? ALL_DESTINATIONS);
    const stillDisabledInConfig = this.deps.config.mta.disabledIps.some(
      (ip) => ip.toLowerCase() === address.toLowerCase(),
    );
    return { address, regions, cleared, stillDisabledInConfig };
  }

  /** The block-list zones asked: the request's, else doctor.dnsblZones. */
  dnsblZones(requested: string[] | undefined): string[] {
    return requested ?? this.deps.config.doctor.dnsblZones.map((zone) => zone.toLowerCase());
  }

  async deliverability(zones: string[]) {
    const { knex, config, lookup } = this.deps;
    const [checks, blocklists] = await Promise.all([
      deliverabilityReport({ knex, config, lookup, ptr: this.ptr, now: this.now(), dnsblZones: zones }),
      blocklistListings({ config, lookup, dnsblZones: zones }),
    ]);
    return { checks, blocklists };
  }

  /** The platform-wide broadcast switch, and where its value comes from (`mailroom marketing status`). */
  async marketing() {
    const stored = await this.deps.settings.get('marketing.enabled');
    const enabled = await this.deps.settings.marketingEnabled(this.deps.config.marketing.enabled);
    return {
      marketing: enabled ? ('enabled' as const) : ('paused' as const),
      source: stored === null ? 'configuration (marketing.enabled)' : 'mailroom marketing pause|resume',
    };
  }

  async setMarketing(enabled: boolean) {
    await this.deps.settings.set('marketing.enabled', enabled ? 'true' : 'false');
    return this.marketing();
  }

  async system() {
    const { knex, dialect, kv, config, version } = this.deps;
    return systemStatus({
      ...{ knex, dialect, kv, config, version },
      readiness: await this.deps.readiness(),
      now: this.now(),
    });
  }

  recentErrors(limit: number) {
    return recentErrors(this.deps.knex, limit);
  }
}
