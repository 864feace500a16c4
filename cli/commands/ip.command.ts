import type { Command } from 'commander';
import { ALL_DESTINATIONS } from '../../core/sending/deliveries/egress-block.repository.js';
import { QueueInspection, type EgressBlockView } from '../../core/sending/deliveries/queue-inspection.js';
import type { Runtime } from '../../app/runtime.js';
import { addressStates, requirePooled } from '../../app/operator/egress-pools.js';
import { ValidationError } from '../../lib/errors.js';
import { formatDuration } from '../format-duration.js';
import { printJson } from '../output.js';
import { withRuntime } from './admin.command.js';
import { addIpWarmupCommands } from './deliverability.command.js';
import { isDomainName } from './queue.command.js';

/** `mailroom ip list`: every pool address, whether it is in use, and where it rests. */
async function printAddresses(runtime: Runtime): Promise<void> {
  const now = runtime.clock.now();
  const blocks = await new QueueInspection(runtime.db.knex).activeBlocks(now);
  const rest = (b: EgressBlockView) => ({
    destination: b.destination,
    strikes: b.strikes,
    until: b.blockedUntil.toISOString(),
    remaining: formatDuration((b.blockedUntil.getTime() - now.getTime()) / 1000),
    reason: b.reason,
  });
  const addresses = addressStates(runtime.config, blocks).map((entry) => ({
    region: entry.region,
    address: entry.address,
    helo: entry.helo,
    weight: entry.weight,
    in_use: entry.inUse,
    disabled_in_config: entry.disabledInConfig,
    disabled_by_operator: entry.disabledByOperator
      ? { reason: entry.disabledByOperator.reason, since: entry.disabledByOperator.since.toISOString() }
      : null,
    rests: entry.rests.map(rest),
  }));
  printJson({ addresses });
}

async function disable(runtime: Runtime, input: string, reason: string): Promise<void> {
  const { address, regions } = requirePooled(runtime.config, input);
  await runtime.services.deliveries.blocks.disable(address, reason, runtime.clock.now());
  printJson({ address, regions, disabled: true, reason });
}

async function enable(runtime: Runtime, input: string, destination: string | undefined): Promise<void> {
  const { address, regions } = requirePooled(runtime.config, input);
  const cleared = await runtime.services.deliveries.blocks.clear(address, destination ?? ALL_DESTINATIONS);
  const disabledInConfig = runtime.config.mta.disabledIps.some((ip) => ip.toLowerCase() === address.toLowerCase());
  printJson({
    address,
    regions,
    destination: destination ?? null,
    cleared,
    // The configuration's list is not the operator's switch: say so rather than seem to enable it.
    ...(disabledInConfig ? { still_disabled_in_config: true } : {}),
  });
}

export function registerIpCommands(program: Command): void {
  const ip = program.command('ip').description('egress addresses of the IP pools');
  ip.command('list')
    .description(
      'every pool address per region: HELO, weight, disabled (configuration or operator), rests per destination',
    )
    .action(() => withRuntime(printAddresses));
  ip.command('disable <address>')
    .description('take an address out of every pool on every node (the rest of its pool keeps sending) until enabled')
    .option('--reason <text>', 'why, shown by ip list', 'disabled by the operator')
    .action((address: string, o: { reason: string }) => withRuntime((runtime) => disable(runtime, address, o.reason)));
  ip.command('enable <address>')
    .description(
      "undo the operator's disable; with --destination, end the address's rest from that destination instead",
    )
    .option('--destination <name>', 'a recipient domain the address rests from')
    .action((address: string, o: { destination?: string }) => {
      if (o.destination !== undefined && !isDomainName(o.destination))
        throw new ValidationError(`--destination must be a domain name such as gmail.com, not "${o.destination}"`);
      return withRuntime((runtime) => enable(runtime, address, o.destination?.toLowerCase()));
    });
  addIpWarmupCommands(ip);
}
