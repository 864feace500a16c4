import type { Command } from 'commander';
import type { DeliveryService } from '../../core/sending/deliveries/delivery.service.js';
import { DELIVERY_STATES, type QueueFilter } from '../../core/sending/deliveries/delivery.types.js';
import { ALL_DESTINATIONS } from '../../core/sending/deliveries/egress-block.repository.js';
import { QueueInspection, type EgressBlockView } from '../../core/sending/deliveries/queue-inspection.js';
import { filterView, isDomainName, PURGE_PREVIEW_LIMIT } from '../../app/operator/queue-filter.js';
import { QueueViews } from '../../app/operator/queue-views.js';
import type { Runtime } from '../../app/runtime.js';
import { ValidationError } from '../../lib/errors.js';
import { isUuid } from '../../lib/ids.js';
import { formatDuration } from '../format-duration.js';
import { printJson } from '../output.js';
import { withRuntime } from './admin.command.js';

type FilterOptions = { email?: string; domain?: string; team?: string };

// Shared with the admin API (app/operator/): the same rules and views for both.
export { isDomainName };

/**
 * The filter of a command that changes deliveries. A mistyped value must not widen the scope,
 * so each given value is checked and at least one is required (no command acts on everything).
 */
export function parseQueueFilter(options: FilterOptions): QueueFilter {
  const filter: QueueFilter = {};
  if (options.email !== undefined) {
    if (!isUuid(options.email))
      throw new ValidationError(`--email must be an email id (a UUID), not "${options.email}"`);
    filter.emailId = options.email.toLowerCase();
  }
  if (options.team !== undefined) {
    if (!isUuid(options.team)) throw new ValidationError(`--team must be a team id (a UUID), not "${options.team}"`);
    filter.teamId = options.team.toLowerCase();
  }
  if (options.domain !== undefined) {
    if (!isDomainName(options.domain))
      throw new ValidationError(
        `--domain must be a recipient domain name such as example.com, not "${options.domain}"`,
      );
    filter.recipientDomain = options.domain.toLowerCase();
  }
  if (Object.keys(filter).length === 0)
    throw new ValidationError(
      'Say which deliveries: --email ID, --domain NAME (recipient domain) or --team ID (at least one; several narrow the match)',
    );
  return filter;
}

const withFilterOptions = (command: Command) =>
  command
    .option('--email <id>', 'deliveries of this email')
    .option('--domain <name>', 'deliveries to this recipient domain')
    .option('--team <id>', "deliveries of this team's mail");

const describeFilter = (filter: QueueFilter) =>
  Object.entries(filterView(filter))
    .filter(([, value]) => value !== undefined)
    .map(([flag, value]) => `--${flag} ${value}`)
    .join(' ');

const iso = (date: Date | null) => (date ? date.toISOString() : null);
const ageSeconds = (now: Date, since: Date) => Math.max(0, Math.floor((now.getTime() - since.getTime()) / 1000));

function blockView(block: EgressBlockView) {
  return {
    address: block.egressIp,
    destination: block.destination,
    strikes: block.strikes,
    until: iso(block.blockedUntil),
    since: iso(block.since),
    reason: block.reason,
  };
}

/** `mailroom queue status`: what is waiting where, for how long, and which addresses are out. */
async function printStatus(runtime: Runtime): Promise<void> {
  const now = runtime.clock.now();
  const { byState, byDestination } = await runtime.services.deliveries.summary();
  const blocks = await new QueueInspection(runtime.db.knex).activeBlocks(now);
  printJson({
    states: Object.fromEntries(DELIVERY_STATES.map((state) => [state, byState[state] ?? 0])),
    destinations: byDestination.map((d) => ({
      domain: d.domain,
      state: d.state,
      count: d.count,
      oldest: formatDuration(ageSeconds(now, d.oldest)),
      oldest_seconds: ageSeconds(now, d.oldest),
    })),
    egress: {
      disabled_in_config: runtime.config.mta.disabledIps,
      disabled: blocks.filter((b) => b.destination === ALL_DESTINATIONS).map(blockView),
      resting: blocks.filter((b) => b.destination !== ALL_DESTINATIONS).map(blockView),
    },
  });
}

/** `mailroom queue show --email ID`: every delivery of one email and every attempt of each. */
async function printEmail(runtime: Runtime, emailId: string, transcripts: boolean): Promise<void> {
  printJson(await new QueueViews(runtime.db.knex, runtime.services.deliveries).email(emailId, transcripts));
}

const ACTIONS: Array<{
  name: string;
  description: string;
  run: (service: DeliveryService, filter: QueueFilter) => Promise<number>;
}> = [
  {
    name: 'hold',
    description: 'hold waiting (queued, deferred) deliveries: no worker takes them until released',
    run: (s, f) => s.hold(f),
  },
  { name: 'release', description: 'put held deliveries back in the queue, due now', run: (s, f) => s.release(f) },
  {
    name: 'retry',
    description: 'make queued and deferred deliveries due now (held ones need release)',
    run: (s, f) => s.retryNow(f),
  },
];

/** Purge cannot be undone: without --yes it only says what it would remove, and fails. */
async function purge(runtime: Runtime, filter: QueueFilter, yes: boolean): Promise<void> {
  const { deliveries } = runtime.services;
  if (!yes) {
    const matching = await deliveries.repository.waiting(filter, PURGE_PREVIEW_LIMIT);
    const count = matching.length === PURGE_PREVIEW_LIMIT ? `${PURGE_PREVIEW_LIMIT} or more` : String(matching.length);
    throw new ValidationError(
      `purge would remove ${count} waiting (queued, deferred, held) deliveries matching ${describeFilter(filter)} and record email.failed for each; nothing was changed. Run it again with --yes to purge.`,
    );
  }
  printJson({ action: 'purge', filter: filterView(filter), affected: await deliveries.purge(filter) });
}

export function registerQueueCommands(program: Command): void {
  const queue = program.command('queue').description('the outbound delivery queue');
  queue
    .command('status', { isDefault: true })
    .description('deliveries by state and by destination with the age of the oldest; egress addresses out of use')
    .action(() => withRuntime(printStatus));
  queue
    .command('show')
    .description("one email's deliveries and their attempts")
    .requiredOption('--email <id>', 'the email id')
    .option('--transcripts', 'include the SMTP transcript of each attempt')
    .action((o: { email: string; transcripts?: boolean }) =>
      withRuntime((runtime) =>
        printEmail(runtime, parseQueueFilter({ email: o.email }).emailId!, Boolean(o.transcripts)),
      ),
    );
  for (const action of ACTIONS) {
    withFilterOptions(queue.command(action.name).description(action.description)).action((o: FilterOptions) => {
      const filter = parseQueueFilter(o);
      return withRuntime(async ({ services }) =>
        printJson({
          action: action.name,
          filter: filterView(filter),
          affected: await action.run(services.deliveries, filter),
        }),
      );
    });
  }
  registerDestinationHoldCommands(queue);
  withFilterOptions(
    queue
      .command('purge')
      .description('remove waiting deliveries for good, recording email.failed for each (needs --yes)'),
  )
    .option('--yes', 'really purge (without it, only says what would be removed)')
    .action((o: FilterOptions & { yes?: boolean }) => {
      const filter = parseQueueFilter(o);
      return withRuntime((runtime) => purge(runtime, filter, Boolean(o.yes)));
    });
}

/** A recipient domain from the command line, checked as the admin API checks it. */
function domainArgument(value: string): string {
  if (!isDomainName(value)) throw new ValidationError(`"${value}" is not a recipient domain name such as example.com`);
  return value.toLowerCase();
}

const holdView = (hold: { domain: string; reason: string | null; heldBy: string | null; createdAt: Date }) => ({
  domain: hold.domain,
  reason: hold.reason,
  held_by: hold.heldBy,
  since: hold.createdAt.toISOString(),
});

/** Standing holds on a destination (the console's "Destination holds"; /admin/queue/holds). */
function registerDestinationHoldCommands(queue: Command): void {
  queue
    .command('holds')
    .description('recipient domains on hold (their mail, old and new, waits until released)')
    .action(() =>
      withRuntime(async ({ services }) => printJson((await services.deliveries.destinationHolds()).map(holdView))),
    );
  queue
    .command('hold-domain <domain>')
    .description(
      'hold a recipient domain: what waits for it and what is accepted later stays held until release-domain',
    )
    .option('--reason <text>', 'why (shown with the hold)')
    .action((domain: string, o: { reason?: string }) => {
      const name = domainArgument(domain);
      return withRuntime(async ({ services }) => {
        const { created, held } = await services.deliveries.holdDestination({
          domain: name,
          reason: o.reason?.trim() || null,
          heldBy: 'mailroom queue hold-domain',
        });
        printJson({ action: 'hold-domain', domain: name, already_held: !created, held });
      });
    });
  queue
    .command('release-domain <domain>')
    .description("end a domain's hold: its held mail is due now")
    .action((domain: string) => {
      const name = domainArgument(domain);
      return withRuntime(async ({ services }) => {
        const { removed, released } = await services.deliveries.releaseDestination(name);
        if (!removed) throw new ValidationError(`no hold on ${name} (mailroom queue holds lists them)`);
        printJson({ action: 'release-domain', domain: name, released });
      });
    });
}
