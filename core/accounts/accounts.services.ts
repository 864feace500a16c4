import type { Knex } from 'knex';
import type { Clock } from '../../lib/clock.js';
import type { Config } from '../../lib/config/config.schema.js';
import { SecretBox } from '../../lib/crypto/secret-box.js';
import type { KeyValueStore } from '../../lib/kv/kv.js';
import type { Logger } from '../../lib/logger.js';
import type { Team } from '../platform/teams/team.types.js';
import { AccountMailer, type AccountMessage } from './account-mailer.js';
import { AccountRecoveryService } from './account-recovery.service.js';
import { AccountService, type SignupPolicy } from './account.service.js';
import { AttemptThrottle } from './attempt-throttle.js';
import { InvitationService } from './invitation.service.js';
import { MfaService } from './mfa.service.js';
import { OperatorService } from './operator.service.js';
import { SessionService } from './session.service.js';

export type AccountsInfrastructure = {
  knex: Knex;
  kv: KeyValueStore;
  clock: Clock;
  config: Config;
  logger: Logger;
  publicUrl: () => string;
  /** Where the dashboard is opened (mailed links point there); the API's URL unless it has its own. */
  dashboardUrl: () => string;
  /** Seals MFA secrets at rest. */
  masterKey: string;
  findTeam: (teamId: string) => Promise<Team | undefined>;
  createTeam: (name: string, trx: Knex) => Promise<Team>;
  /** Sends account mail from accounts.mailFrom as accounts.mailTeamId (wired only when both are set). */
  sendAccountMail?: (message: AccountMessage) => Promise<void>;
};

/** What the API needs to know about sessions beyond the services: cookie and CSRF settings. */
export type AccountSettings = {
  /** Whether every cookie the appliance sets is Secure (cookiesAreSecure, read on each use). */
  readonly secureCookies: boolean;
  /**
   * The origins cookie-authenticated writes may come from (see api/session-auth.ts): the API's
   * public URL, and the dashboard's when it has an address of its own.
   */
  allowedOrigins: () => string[];
};

/**
 * The one rule for the Secure attribute of every cookie the appliance sets: whenever the public
 * URL (api.publicUrl) is https, whatever the env, and always in production, where TLS may end at
 * a proxy in front of a URL configured without it. A URL that does not parse errs towards Secure.
 */
export function cookiesAreSecure(env: Config['env'], publicUrl: string): boolean {
  if (env === 'production') return true;
  try {
    return new URL(publicUrl).protocol === 'https:';
  } catch {
    return true;
  }
}

export function signupPolicy(config: Config): SignupPolicy {
  return config.accounts.signup ?? (config.env === 'production' ? 'closed' : 'open');
}

/** The accounts group: users, sessions, verification and reset tokens, and their mail. */
export function createAccountServices(infra: AccountsInfrastructure) {
  const { knex, clock, config } = infra;
  const throttle = new AttemptThrottle(infra.kv, {
    perAccount: config.accounts.attemptsPerAccount,
    perIp: config.accounts.attemptsPerIp,
  });
  const sessions = new SessionService({ knex, clock, findTeam: infra.findTeam });
  const mailer = new AccountMailer({
    send: infra.sendAccountMail,
    logger: infra.logger,
    publicUrl: infra.dashboardUrl,
  });
  const invitations = new InvitationService({ knex, clock, mailer, sessions, findTeam: infra.findTeam });
  const policy = signupPolicy(config);
  const accountRecovery = new AccountRecoveryService({
    ...{ knex, clock, mailer, throttle, logger: infra.logger },
    // Under `invite` a signup joins its invitation's team once the address is verified.
    onVerified: policy === 'invite' ? (user) => invitations.joinAfterVerification(user) : undefined,
  });
  const mfa = new MfaService({ knex, clock, box: new SecretBox(infra.masterKey), throttle, sessions });
  const accounts = new AccountService({
    knex,
    clock,
    signup: policy,
    throttle,
    sessions,
    recovery: accountRecovery,
    mfa,
    invitations,
    createTeam: infra.createTeam,
    teamExists: async (teamId) => Boolean(await infra.findTeam(teamId)),
  });
  const accountSettings: AccountSettings = {
    // A getter: without api.publicUrl the URL is only known once the server listens.
    get secureCookies() {
      return cookiesAreSecure(config.env, infra.publicUrl());
    },
    allowedOrigins: () => [...new Set([infra.publicUrl(), infra.dashboardUrl()].map((url) => new URL(url).origin))],
  };
  return {
    accounts,
    accountRecovery,
    accountMailer: mailer,
    userSessions: sessions,
    accountMfa: mfa,
    invitations,
    accountSettings,
    /** The limits of single sign-on look-ups: per address as sign-in, per client address its own. */
    ssoDiscoveryThrottle: new AttemptThrottle(infra.kv, {
      perAccount: config.accounts.attemptsPerAccount,
      perIp: config.accounts.ssoDiscoveriesPerIp,
    }),
    operators: new OperatorService({ knex, clock, recovery: accountRecovery, mfa }),
  };
}

export type AccountServices = ReturnType<typeof createAccountServices>;
