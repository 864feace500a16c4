import type { Command } from 'commander';
import { serializeDomain } from '../../api/serializers/domain.serializer.js';
import { isDomainName } from './queue.command.js';
import { NotFoundError, ValidationError } from '../../lib/errors.js';
import { isUuid } from '../../lib/ids.js';
import { printJson } from '../output.js';
import { withRuntime } from './admin.command.js';

type Options = { domain: string; team?: string };

/** Operator commands for a team's domains. Output is the domain as the API shows it, as JSON. */
export function registerDomainCommands(program: Command): void {
  const domain = program.command('domain').description("teams' domains");
  domain
    .command('auto-configure')
    .description(
      "publish the domain's DNS records by DNS UPDATE (RFC 2136) in its zone from dns.updateZones, then verify them",
    )
    .requiredOption('--domain <name>', 'the domain, e.g. mail.example.com')
    .option('--team <id>', 'the team owning it, when several teams have added the same name')
    .action((options: Options) => {
      if (!isDomainName(options.domain))
        throw new ValidationError(`--domain must be a domain name such as example.com, not "${options.domain}"`);
      if (options.team !== undefined && !isUuid(options.team))
        throw new ValidationError(`--team must be a team id (a UUID), not "${options.team}"`);
      return withRuntime(async ({ services }) => {
        const named = (await services.domains.findByName(options.domain)).filter(
          (found) => options.team === undefined || found.teamId === options.team.toLowerCase(),
        );
        if (named.length === 0)
          throw new NotFoundError(`No domain ${options.domain}${options.team ? ` in team ${options.team}` : ''}`);
        if (named.length > 1)
          throw new ValidationError(
            `${options.domain} belongs to ${named.length} teams (${named.map((d) => d.teamId).join(', ')}): say which with --team ID`,
          );
        const [found] = named;
        printJson(serializeDomain(await services.domainAutoConfigure.autoConfigure(found!.teamId, found!.id)));
      });
    });
}
