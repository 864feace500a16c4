import type { Knex } from 'knex';
import type { Clock } from '../../lib/clock.js';
import type { AuditRecorder } from '../platform/audit/audit-log.service.js';
import { SecretBox } from '../../lib/crypto/secret-box.js';
import type { SessionService } from '../accounts/session.service.js';
import type { Team } from '../platform/teams/team.types.js';
import { SsoFlowStore } from './sso-flow.store.js';
import { SsoJoin } from './sso-join.js';
import { SsoProviderClient } from './sso-provider.client.js';
import { SsoSignInService, type AttemptLimiter } from './sso-sign-in.service.js';
import { SsoService } from './sso.service.js';

export type SsoInfrastructure = {
  knex: Knex;
  clock: Clock;
  /** Seals the client secrets at rest. */
  masterKey: string;
  /** The API's public base URL: the redirect URI is `{publicUrl}/auth/sso/callback`. */
  publicUrl: () => string;
  /** Where people open the dashboard: the callback sends the browser back there. */
  dashboardUrl: () => string;
  sessions: Pick<SessionService, 'issue'>;
  findTeam: (teamId: string) => Promise<Team | undefined>;
  /** The names of the team's verified sending domains (lower-cased). */
  verifiedDomains: (teamId: string) => Promise<string[]>;
  /** A plan change that takes single sign-on out of use is recorded in the team's audit log. */
  audit: AuditRecorder;
  /** The accounts group's sign-in attempt limits, which discovery shares (its own buckets). */
  throttle: AttemptLimiter;
  /** Enforcement ends the password sessions of the covered addresses (the accounts group's rule). */
  endPasswordSessions: (teamId: string, domains: readonly string[]) => Promise<number>;
};

/** The path of the redirect URI operators register at their provider. */
export const SSO_CALLBACK_PATH = '/auth/sso/callback';

/** Single sign-on: the team's settings (admins) and signing in through the provider (everyone). */
export function createSsoServices(infra: SsoInfrastructure) {
  const { knex, clock } = infra;
  const box = new SecretBox(infra.masterKey);
  const redirectUri = () => `${infra.publicUrl().replace(/\/+$/, '')}${SSO_CALLBACK_PATH}`;
  const client = new SsoProviderClient({ clock, redirectUri });
  const flows = new SsoFlowStore({ knex, clock });
  const sso = new SsoService({
    ...{ knex, clock, box, flows, client },
    ...{ verifiedDomains: infra.verifiedDomains, audit: infra.audit, endPasswordSessions: infra.endPasswordSessions },
  });
  const ssoSignIn = new SsoSignInService({
    ...{ clock, box, flows, client, repository: sso.repository },
    join: new SsoJoin(knex),
    sessions: infra.sessions,
    findTeam: infra.findTeam,
    verifiedDomains: infra.verifiedDomains,
    throttle: infra.throttle,
  });
  const ssoLinks = {
    redirectUri,
    /** A dashboard page (`/dashboard/...`) on the dashboard's own address. */
    dashboard: (path: string) => `${infra.dashboardUrl().replace(/\/+$/, '')}${path}`,
  };
  return { sso, ssoSignIn, ssoFlows: flows, ssoLinks };
}

export type SsoServices = ReturnType<typeof createSsoServices>;
