import type { Command } from 'commander';
import { serializeApiKey } from '../../api/serializers/api-key.serializer.js';
import { serializeTeam } from '../../api/serializers/team.serializer.js';
import { auditCli } from '../cli-audit.js';
import { printJson } from '../output.js';
import { withRuntime } from './admin.command.js';

/** Operator commands for teams and their keys. Output is JSON on stdout. */
export function registerTeamCommands(program: Command): void {
  const team = program.command('team').description('teams (tenants)');
  team
    .command('create')
    .description('create a team and its first full_access API key')
    .requiredOption('--name <name>', 'team name, 1 to 80 characters')
    .option('--plan <code>', 'plan code (free, pro, scale, unlimited)', 'free')
    .option('--owner-email <email>', 'e-mail of the first member (owner)')
    .action((options: { name: string; plan: string; ownerEmail?: string }) =>
      withRuntime(async ({ db, services }) => {
        // Team and key in one transaction: a failure leaves neither behind.
        const { created, key } = await db.knex.transaction(async (trx) => {
          const created = await services.teams.create(
            { name: options.name, planCode: options.plan, ownerEmail: options.ownerEmail },
            trx,
          );
          const key = await services.apiKeys.create(
            created.id,
            { name: 'Initial key', permission: 'full_access' },
            trx,
          );
          const entry = { name: created.name, plan: options.plan };
          await auditCli(services, trx, created.id, 'team.created', { type: 'team', id: created.id }, entry);
          return { created, key };
        });
        printJson({ team: serializeTeam(created), api_key: { id: key.id, token: key.token } });
      }),
    );
  team
    .command('list')
    .description('list every team')
    .action(() =>
      withRuntime(async ({ services }) => printJson((await services.teams.list()).map((team) => serializeTeam(team)))),
    );
  team
    .command('set-plan')
    .description(
      "change a team's plan: its quotas, retention and domain limit (no payment provider: the operator assigns plans)",
    )
    .requiredOption('--team <id>', 'team id')
    .requiredOption('--plan <code>', 'plan code (free, pro, scale, unlimited)')
    .action((o: { team: string; plan: string }) =>
      withRuntime(async ({ db, services }) => {
        const team = await db.knex.transaction(async (trx) => {
          const team = await services.teams.setPlan(o.team, o.plan, trx);
          const resource = { type: 'team', id: team.id };
          await auditCli(services, trx, team.id, 'team.operator_updated', resource, { plan: o.plan });
          // A plan without single sign-on takes it out of use, as a subscription change does.
          await services.sso.planChanged(team.id, team.plan.code, trx);
          return team;
        });
        printJson(serializeTeam(team, await services.sso.summary(team.id)));
      }),
    );
  team
    .command('set-risk')
    .description('suspend a team (every key answers 403 suspended_api_key) or restore it')
    .requiredOption('--team <id>', 'team id')
    .requiredOption('--state <state>', 'normal or suspended')
    .action((o: { team: string; state: string }) =>
      withRuntime(async ({ db, services }) => {
        const team = await db.knex.transaction(async (trx) => {
          const team = await services.teams.setRiskState(o.team, o.state, trx);
          const action = team.riskState === 'suspended' ? 'team.suspended' : 'team.resumed';
          await auditCli(services, trx, team.id, action, { type: 'team', id: team.id });
          return team;
        });
        printJson(serializeTeam(team, await services.sso.summary(team.id)));
      }),
    );
  team
    .command('set-tier')
    .description(
      "set a team's sending tier; tier 2 or more takes it out of the sending sandbox (mail to any recipient)",
    )
    .requiredOption('--team <id>', 'team id')
    .requiredOption('--tier <n>', '0 new, 1 verified, 2 paid, 3 trusted')
    .action((o: { team: string; tier: string }) =>
      withRuntime(async ({ db, services }) => {
        const team = await db.knex.transaction(async (trx) => {
          const team = await services.teams.setTier(o.team, Number(o.tier), trx);
          const entry = { tier: team.sendingTier };
          await auditCli(services, trx, team.id, 'team.operator_updated', { type: 'team', id: team.id }, entry);
          return team;
        });
        printJson(serializeTeam(team, await services.sso.summary(team.id)));
      }),
    );

  const key = program.command('key').description('API keys');
  key
    .command('create')
    .description('create an API key for a team; prints the token once')
    .requiredOption('--team <id>', 'team id')
    .option('--name <name>', 'key name', 'CLI key')
    .option('--permission <permission>', 'full_access or sending_access', 'full_access')
    .action((o: { team: string; name: string; permission: string }) =>
      withRuntime(async ({ db, services }) => {
        await services.teams.get(o.team);
        const permission =
          o.permission === 'sending_access'
            ? 'sending_access'
            : o.permission === 'full_access'
              ? 'full_access'
              : undefined;
        if (!permission) throw new Error('--permission must be full_access or sending_access');
        const created = await db.knex.transaction(async (trx) => {
          const created = await services.apiKeys.create(o.team, { name: o.name, permission }, trx);
          const entry = { name: o.name, permission };
          await auditCli(services, trx, o.team, 'api_key.created', { type: 'api_key', id: created.id }, entry);
          return created;
        });
        printJson({ api_key: created });
      }),
    );
  for (const [name, suspended] of [
    ['suspend', true],
    ['unsuspend', false],
  ] as const) {
    key
      .command(name)
      .description(
        suspended
          ? 'suspend an API key: it answers 403 suspended_api_key until unsuspended'
          : 'put a suspended API key back in use',
      )
      .requiredOption('--team <id>', 'team id')
      .requiredOption('--key <id>', 'API key id')
      .action((o: { team: string; key: string }) =>
        withRuntime(async ({ db, services }) => {
          const key = await db.knex.transaction(async (trx) => {
            const key = await services.apiKeys.setSuspended(o.team, o.key, suspended, trx);
            const action = suspended ? 'api_key.suspended' : 'api_key.unsuspended';
            await auditCli(services, trx, o.team, action, { type: 'api_key', id: key.id });
            return key;
          });
          printJson(serializeApiKey(key));
        }),
      );
  }
}
