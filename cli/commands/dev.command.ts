import type { Command } from 'commander';
import { serializeDomain } from '../../api/serializers/domain.serializer.js';
import { createDomainSchema } from '../../core/sending/domains/domain.schemas.js';
import { ConfigError } from '../../lib/errors.js';
import { printJson } from '../output.js';
import { withRuntime } from './admin.command.js';

/** The POST /domains body the command stands for; a bad name or region is a usage error (exit 2). */
function domainInput(name: string, region: string, receiving: boolean) {
  const parsed = createDomainSchema.safeParse({
    name,
    region,
    ...(receiving ? { capabilities: { sending: 'enabled', receiving: 'enabled' }, confirm_replace_mx: true } : {}),
  });
  if (!parsed.success)
    throw new ConfigError(
      `dev trust-domain: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`,
    );
  return parsed.data;
}

/**
 * Shortcuts for a development node, refused in production: a first email in two minutes needs
 * a verified domain, and a developer's laptop has no DNS zone to publish records in.
 */
export function registerDevCommands(program: Command): void {
  const dev = program.command('dev').description('development shortcuts (refused in production)');
  dev
    .command('trust-domain')
    .description('add the domain to the team (or take the one it has) and mark it verified without DNS')
    .requiredOption('--team <id>', 'team id')
    .requiredOption('--name <name>', 'domain name, e.g. example.test')
    .option('--region <region>', 'sending region', 'us-east-1')
    .option('--receiving', 'also receive mail for it (the inbound MX accepts its addresses)')
    .action((options: { team: string; name: string; region: string; receiving?: boolean }) =>
      withRuntime(async ({ config, logger, services }) => {
        if (config.env === 'production')
          throw new ConfigError(
            'mailroom dev trust-domain is refused in production: publish the records and run POST /domains/{id}/verify',
          );
        const team = await services.teams.get(options.team);
        const name = options.name.toLowerCase();
        const existing = (await services.domains.findByName(name)).find((domain) => domain.teamId === team.id);
        const id =
          existing?.id ??
          (await services.domains.create(team, domainInput(name, options.region, Boolean(options.receiving)))).domain
            .id;
        // The team's domain taken as it is, except that --receiving switches receiving on (the
        // free plan allows one domain: the quick start's is the one a newcomer asks to receive on).
        if (existing && options.receiving && !existing.receivingEnabled)
          await services.domains.update(team.id, id, { capabilities: { receiving: 'enabled' } });
        const view = await services.domainVerification.trustWithoutDns(team.id, id);
        logger.warn(
          { team: team.id, domain: name },
          'dev trust-domain: domain marked verified WITHOUT DNS (development only; mail from it will fail DKIM and SPF anywhere real)',
        );
        printJson(serializeDomain(view));
      }),
    );
}
