import type { Command } from 'commander';
import { requirePooled } from '../../app/operator/egress-pools.js';
import type { Runtime } from '../../app/runtime.js';
import { utcDay } from '../../core/sending/shaping/ip-warmup.service.js';
import { NotFoundError } from '../../lib/errors.js';
import { isUuid } from '../../lib/ids.js';
import {
  serializeAction,
  serializeDefaultLimits,
  serializeProviderRule,
  serializeReactionRule,
  serializeWarmup,
} from '../../api/serializers/shaping.serializer.js';
import { printJson, UsageError } from '../output.js';
import { withRuntime } from './admin.command.js';

type Json = { json?: boolean };

/** Columns padded to their widest cell: the human form of a list (`--json` prints the data). */
export function printTable(header: string[], rows: Array<Array<string | number | null>>): void {
  const cells = [header, ...rows.map((row) => row.map((cell) => (cell === null ? '-' : String(cell))))];
  const widths = header.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)));
  for (const row of cells)
    process.stdout.write(
      `${row
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join('  ')
        .trimEnd()}\n`,
    );
}

async function listActions(runtime: Runtime, options: Json & { active?: boolean; limit: string }): Promise<void> {
  const { actions } = runtime.services.shaping;
  const now = runtime.clock.now();
  const limit = Number(options.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new UsageError('--limit must be 1 to 1000');
  const page = await actions.repository.page({ limit, activeAt: options.active ? now : undefined });
  const data = page.map((action) => serializeAction(action, now, actions.factorAt(action, now)));
  if (options.json) return printJson({ actions: data });
  if (data.length === 0) return void process.stdout.write(options.active ? 'No action in force.\n' : 'No action.\n');
  printTable(
    ['ID', 'KIND', 'PROVIDER', 'IP / TEAM', 'FACTOR', 'RULE', 'STARTED', 'ENDS', 'ACTIVE'],
    data.map((a) => [
      a.id,
      a.kind,
      a.provider,
      a.egress_ip ?? a.team_id,
      a.factor_now ?? a.factor,
      a.rule_id,
      a.started_at.slice(0, 19),
      a.ends_at.slice(0, 19),
      a.active ? 'yes' : 'no',
    ]),
  );
}

async function lift(runtime: Runtime, id: string, options: Json): Promise<void> {
  if (!isUuid(id)) throw new UsageError(`"${id}" is not an action id (mailroom deliverability actions lists them)`);
  const { actions } = runtime.services.shaping;
  const found = await actions.repository.findById(id.toLowerCase());
  if (!found) throw new NotFoundError(`No deliverability action ${id}.`);
  const ended = await actions.end(found.id);
  const result = { id: found.id, lifted: ended, ...(ended ? {} : { ended_at: found.endsAt.toISOString() }) };
  if (options.json) return printJson(result);
  process.stdout.write(
    ended
      ? `Lifted ${found.kind} of ${found.provider}${found.egressIp ? ` from ${found.egressIp}` : ''}.\n`
      : `Action ${found.id} had already ended at ${found.endsAt.toISOString()}; nothing changed.\n`,
  );
}

async function providers(runtime: Runtime, options: Json): Promise<void> {
  const { shaping } = runtime.services;
  const rules = shaping.providers.all().map(serializeProviderRule);
  const reactions = shaping.actions.reactionRules().map(serializeReactionRule);
  if (options.json)
    return printJson({
      enabled: shaping.enabled,
      default: serializeDefaultLimits(shaping.providers.forHosts('default.invalid', ['default.invalid']).limits),
      providers: rules,
      reactions,
    });
  if (!shaping.enabled) process.stdout.write('Traffic shaping is off (mta.shaping.enabled).\n');
  printTable(
    ['PROVIDER', 'CONNECTIONS', 'MSG/CONN', 'MSG/HOUR', 'PACING MS', 'TLS', 'ORIGIN', 'MX'],
    rules.map((r) => [
      r.name,
      r.max_connections,
      r.messages_per_connection,
      r.messages_per_hour,
      r.pacing_ms,
      r.tls_required ? 'required' : '-',
      r.origin,
      r.mx.join(','),
    ]),
  );
  process.stdout.write('\n');
  printTable(
    ['REACTION', 'ACTION', 'PROVIDERS', 'CODES', 'ENHANCED', 'TEXT', 'ORIGIN'],
    reactions.map((r) => [
      r.id,
      r.action === 'pause' && r.pause_seconds ? `pause ${r.pause_seconds}s` : r.action,
      r.match.providers?.join(',') ?? 'any',
      r.match.codes?.join(',') ?? null,
      r.match.enhanced?.join(',') ?? null,
      r.match.text,
      r.origin,
    ]),
  );
}

/** `mailroom deliverability ...`: what traffic shaping does, and lifting an action (docs/cli.md). */
export function registerDeliverabilityCommands(program: Command): void {
  const group = program
    .command('deliverability')
    .description('traffic shaping per mailbox provider: rules in force, actions taken, lift one');
  group
    .command('actions')
    .description('what shaping did (slow, pause, suspend_marketing), newest first')
    .option('--active', 'only the actions in force')
    .option('--limit <n>', 'at most this many', '50')
    .option('--json', 'print { actions: [...] } as GET /admin/deliverability/actions does')
    .action((o: Json & { active?: boolean; limit: string }) => withRuntime((runtime) => listActions(runtime, o)));
  group
    .command('lift <id>')
    .description('end an action now: the address sends to the provider at its full limits again')
    .option('--json', 'print { id, lifted }')
    .action((id: string, o: Json) => withRuntime((runtime) => lift(runtime, id, o)));
  group
    .command('providers')
    .description('the provider rules (built-in and configured) and the reactions to replies')
    .option('--json', 'print what GET /admin/deliverability/providers does')
    .action((o: Json) => withRuntime((runtime) => providers(runtime, o)));
}

async function warmupStatus(runtime: Runtime, options: Json): Promise<void> {
  const { providers: matcher, warmup } = runtime.services.shaping;
  const statuses = (await warmup.status(matcher.all().map((rule) => rule.name))).map(serializeWarmup);
  if (options.json) return printJson({ warmups: statuses });
  if (statuses.length === 0) return void process.stdout.write('No address is warming up.\n');
  for (const s of statuses) {
    const state = s.complete ? 'complete' : `day ${s.day} of ${s.days}`;
    process.stdout.write(`${s.address}  ${state}  started ${s.started_on}  sent today ${s.sent_today}\n`);
    printTable(
      ['  PROVIDER', 'SENT', 'ALLOWANCE', '2XX', '4XX', '5XX', 'CONN'],
      s.providers.map((p) => [
        `  ${p.provider}`,
        p.sent,
        p.allowance ?? 'no limit',
        p.answers['2xx'] ?? null,
        p.answers['4xx'] ?? null,
        p.answers['5xx'] ?? null,
        p.answers.connection ?? null,
      ]),
    );
  }
}

async function warmupStart(runtime: Runtime, input: string, options: Json & { day: string }): Promise<void> {
  const day = Number(options.day);
  if (!Number.isInteger(day) || day < 1 || day > 366)
    throw new UsageError('--day must be a whole number from 1 to 366');
  const { address } = requirePooled(runtime.config, input);
  // Joining on day N: the schedule is taken to have started N-1 days ago.
  const startedOn = utcDay(new Date(runtime.clock.now().getTime() - (day - 1) * 86_400_000));
  await runtime.services.shaping.warmup.start(address, startedOn);
  if (options.json) return printJson({ address, started_on: startedOn, day });
  process.stdout.write(`${address} is warming up from day ${day} (day 1: ${startedOn}).\n`);
}

async function warmupStop(runtime: Runtime, address: string, options: Json): Promise<void> {
  if (!(await runtime.services.shaping.warmup.stop(address.trim())))
    throw new NotFoundError(`${address} is not warming up (mailroom ip warmup status lists the warming addresses).`);
  if (options.json) return printJson({ address: address.trim(), stopped: true });
  process.stdout.write(`${address.trim()} no longer warms up: it sends at its pool share.\n`);
}

/** `mailroom ip warmup status|start|stop`, added to the `ip` group by ip.command.ts. */
export function addIpWarmupCommands(ip: Command): void {
  const warmup = ip
    .command('warmup')
    .description('IP warm-up: a new address takes no more than its day\u2019s allowance');
  warmup
    .command('status')
    .description('every warming address: day N of M, sent today against the allowance per provider, answers')
    .option('--json', 'print { warmups: [...] } as GET /admin/ips/warmup does')
    .action((o: Json) => withRuntime((runtime) => warmupStatus(runtime, o)));
  warmup
    .command('start <address>')
    .description('start (or restart) the warm-up of a pool address')
    .option('--day <n>', 'join the schedule on day n', '1')
    .option('--json', 'print { address, started_on, day }')
    .action((address: string, o: Json & { day: string }) => withRuntime((runtime) => warmupStart(runtime, address, o)));
  warmup
    .command('stop <address>')
    .description('stop the warm-up: the address sends at its pool share again')
    .option('--json', 'print { address, stopped }')
    .action((address: string, o: Json) => withRuntime((runtime) => warmupStop(runtime, address, o)));
}
