import type { Command } from 'commander';
import { serializeUser } from '../../api/serializers/account.serializer.js';
import { SET_PASSWORD_LIFETIME_MS, type Role } from '../../core/accounts/account.types.js';
import { DASHBOARD_LINKS } from '../../core/accounts/account-mailer.js';
import type { Runtime } from '../../app/runtime.js';
import { ValidationError } from '../../lib/errors.js';
import { printJson } from '../output.js';
import { withRuntime } from './admin.command.js';

const ROLES: readonly Role[] = ['owner', 'admin', 'member'];

/** Reads the password piped in (Ansible: `stdin:`), without its trailing newline. */
async function readPassword(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const password = Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
  if (password.length < 6 || password.length > 4096)
    throw new ValidationError('the password on standard input must be 6 to 4096 characters');
  return password;
}

type CreateOptions = {
  email: string;
  team?: string;
  role?: string;
  operator?: boolean;
  name?: string;
  passwordStdin?: boolean;
};

/** The one-time set-password link of a user created without a password. */
function setPasswordFields(services: Runtime['services'], token: string | null) {
  if (!token) return {};
  return {
    // One use, 24 hours: the dashboard page POSTs it to /auth/password-reset.
    set_password_url: services.accountMailer.link(DASHBOARD_LINKS.resetPassword, token),
    set_password_expires_in_seconds: SET_PASSWORD_LIFETIME_MS / 1000,
  };
}

/** Operator commands for dashboard users. Output is JSON on stdout; never the password. */
export function registerUserCommands(program: Command): void {
  const user = program.command('user').description('dashboard users');
  user
    .command('create')
    .description(
      'create a user (or find it by address) and make it a member of a team, or with --operator an operator of the appliance (no team; MFA required for the admin API)',
    )
    .requiredOption('--email <email>', 'the address the user signs in with')
    .option('--team <id>', 'the team the user joins (not with --operator)')
    .option('--role <role>', 'owner, admin or member (not with --operator)')
    .option('--operator', 'an operator: reaches the admin API (/admin) once MFA is on; belongs to no team')
    .option('--name <name>', 'display name (max 200)')
    .option('--password-stdin', 'read the password from standard input; without it a set-password link is printed')
    .action((o: CreateOptions) =>
      withRuntime(async ({ services }) => {
        if (o.operator && (o.team !== undefined || o.role !== undefined))
          throw new ValidationError('--operator takes no --team or --role: an operator belongs to no team');
        if (!o.operator && (o.team === undefined || o.role === undefined))
          throw new ValidationError('say --team ID and --role ROLE (or --operator for an operator of the appliance)');
        if (!o.operator && !ROLES.includes(o.role as Role))
          throw new ValidationError('--role must be owner, admin or member');
        if (!/^[^@\s]+@[^@\s]+$/.test(o.email) || o.email.length > 320)
          throw new ValidationError('--email must be an e-mail address');
        if (o.name !== undefined && o.name.length > 200) throw new ValidationError('--name is at most 200 characters');
        const password = o.passwordStdin ? await readPassword() : undefined;
        if (o.operator) {
          const made = await services.operators.create({ email: o.email, name: o.name, password });
          printJson({
            user: { ...serializeUser(made.user), operator: true },
            created: made.created,
            operator: true,
            // The admin API answers 403 mfa_required until the operator turns MFA on after signing in.
            mfa_required: true,
            ...setPasswordFields(services, made.setPasswordToken),
          });
          return;
        }
        const result = await services.accounts.createByOperator({
          email: o.email,
          teamId: o.team!,
          role: o.role as Role,
          name: o.name,
          password,
        });
        printJson({
          user: serializeUser(result.user),
          created: result.created,
          team_id: o.team,
          role: o.role,
          ...setPasswordFields(services, result.setPasswordToken),
        });
      }),
    );
}
