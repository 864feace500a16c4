import type { Clock } from '../../lib/clock.js';
import type { SecretBox } from '../../lib/crypto/secret-box.js';
import { ServiceUnavailableError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import type { IssuedSession, Role, User } from '../accounts/account.types.js';
import type { SessionService } from '../accounts/session.service.js';
import type { Team } from '../platform/teams/team.types.js';
import type { SsoFlowStore } from './sso-flow.store.js';
import type { SsoJoin } from './sso-join.js';
import type { SsoProviderClient } from './sso-provider.client.js';
import type { SsoCallbackQuery } from './sso.schemas.js';
import type { SsoRepository } from './sso.repository.js';
import { providerSettings } from './sso-settings.js';
import {
  SsoFlowError,
  type SsoConfiguration,
  type SsoFlow,
  type SsoIdentity,
  type SsoPurpose,
  type SsoSignIn,
} from './sso.types.js';

export type SsoSignInDeps = {
  clock: Clock;
  box: SecretBox;
  repository: SsoRepository;
  flows: SsoFlowStore;
  client: SsoProviderClient;
  join: SsoJoin;
  sessions: Pick<SessionService, 'issue'>;
  findTeam: (teamId: string) => Promise<Team | undefined>;
  /** The names of the team's verified sending domains (lower-cased). */
  verifiedDomains: (teamId: string) => Promise<string[]>;
  /** The sign-in attempt limits (per address and per client IP); refuses with 429 when spent. */
  throttle: AttemptLimiter;
};

/** What the accounts group's attempt throttle offers: take a try, or throw rate_limit_exceeded. */
export type AttemptLimiter = { take(action: string, account: string, ip: string): Promise<void> };

export type SsoDiscovery = { sso: false } | { sso: true; enforced: boolean; authorizationUrl: string };

/** How a callback ended; the route turns it into a redirect (and an audit entry). */
export type SsoCallbackOutcome =
  | { kind: 'signed_in'; teamId: string; user: User; joined: boolean; role: Role; issued: IssuedSession }
  | { kind: 'tested'; teamId: string; email: string; userId: string | null; testerEmail: string | null }
  | { kind: 'failed'; purpose: SsoPurpose; teamId: string | null; email: string | null; error: SsoFlowError };

/** Failures that say the configuration (not the person) is wrong: the status turns `failing`. */
const CONFIGURATION_FAILURES = new Set(['provider_error', 'token_invalid']);

const domainOf = (email: string) => email.slice(email.lastIndexOf('@') + 1).toLowerCase();

/**
 * Signing in through the team's provider: the sign-in page asks whether an address goes there
 * (discover), the provider sends the browser back to the callback, and a valid ID token for a
 * verified address on a covered domain signs the person in (joining the team just in time).
 */
export class SsoSignInService {
  constructor(private readonly deps: SsoSignInDeps) {}

  /**
   * Whether an address signs in through a provider; when it does, a round trip is started.
   * Limited like password sign-in (its own buckets): unlimited, it would list which domains
   * have single sign-on and fill the flow table with round trips nobody finishes.
   */
  async discover(email: string, ip: string): Promise<SsoDiscovery> {
    await this.deps.throttle.take('sso_discover', email, ip);
    const config = await this.inUseFor(email);
    if (!config) return { sso: false };
    const settings = await providerSettings(this.deps.box, this.deps.repository, config);
    const started = await this.deps.client.start(settings, email.toLowerCase()).catch(async (err: unknown) => {
      if (!(err instanceof SsoFlowError)) throw err;
      await this.markFailing(config.teamId, err);
      throw new ServiceUnavailableError("The team's identity provider could not be reached: try again shortly");
    });
    const { state, nonce, codeVerifier } = started;
    await this.deps.flows.save(state, { teamId: config.teamId, purpose: 'sign_in', nonce, codeVerifier, userId: null });
    return { sso: true, enforced: config.enforced, authorizationUrl: started.url };
  }

  /**
   * Whether single sign-on decides this address's password sign-in: the team whose active,
   * enforced single sign-on covers its domain, or null.
   */
  async enforcedFor(email: string): Promise<{ teamId: string } | null> {
    const config = await this.inUseFor(email);
    return config?.enforced ? { teamId: config.teamId } : null;
  }

  async callback(query: SsoCallbackQuery): Promise<SsoCallbackOutcome> {
    const flow = query.state ? await this.deps.flows.take(query.state) : undefined;
    if (!flow) return failed('sign_in', null, null, 'state_invalid', 'Unknown, used or expired state');
    let email: string | null = null;
    try {
      const config = await this.usableFor(flow);
      const identity = await this.identityFrom(config, flow, query);
      email = identity.email;
      await this.assertVouched(config, identity);
      return flow.purpose === 'test' ? await this.tested(config, flow, identity) : await this.signIn(config, identity);
    } catch (err) {
      if (!(err instanceof SsoFlowError)) throw err;
      if (CONFIGURATION_FAILURES.has(err.code)) await this.markFailing(flow.teamId, err);
      await this.record(flow.teamId, { userId: null, email, name: null, outcome: 'failed', error: err.code });
      return { kind: 'failed', purpose: flow.purpose, teamId: flow.teamId, email, error: err };
    }
  }

  private async usableFor(flow: SsoFlow): Promise<SsoConfiguration> {
    const config = await this.deps.repository.findByTeam(flow.teamId);
    const team = await this.deps.findTeam(flow.teamId);
    if (!config || !team?.plan.sso || (flow.purpose === 'sign_in' && !config.active))
      throw new SsoFlowError('not_configured', 'Single sign-on is not in use for this team any more');
    return config;
  }

  private async identityFrom(config: SsoConfiguration, flow: SsoFlow, query: SsoCallbackQuery): Promise<SsoIdentity> {
    const settings = await providerSettings(this.deps.box, this.deps.repository, config);
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) if (typeof value === 'string') params.set(name, value);
    const checks = { state: query.state!, nonce: flow.nonce, codeVerifier: flow.codeVerifier };
    return this.deps.client.finish(settings, params, checks);
  }

  /** The provider must vouch for the address, and the team for its domain. */
  private async assertVouched(config: SsoConfiguration, identity: SsoIdentity): Promise<void> {
    if (!identity.emailVerified)
      throw new SsoFlowError('email_unverified', 'The provider does not vouch for the address (email_verified)');
    if (!(await this.covers(config, domainOf(identity.email))))
      throw new SsoFlowError('domain_not_covered', `${domainOf(identity.email)} is not covered by this team`);
  }

  private async tested(config: SsoConfiguration, flow: SsoFlow, identity: SsoIdentity): Promise<SsoCallbackOutcome> {
    const now = this.deps.clock.now();
    await this.deps.repository.update(config.teamId, { tested_at: now, last_error: null, last_error_at: null });
    await this.record(config.teamId, {
      userId: flow.userId,
      email: identity.email,
      name: identity.name,
      outcome: 'tested',
      error: null,
    });
    const testerEmail = flow.userId ? await this.deps.join.emailOf(flow.userId) : null;
    return { kind: 'tested', teamId: config.teamId, email: identity.email, userId: flow.userId, testerEmail };
  }

  private async signIn(config: SsoConfiguration, identity: SsoIdentity): Promise<SsoCallbackOutcome> {
    const now = this.deps.clock.now();
    const { user, joined, role } = await this.deps.join.join(config.teamId, identity, now);
    const issued = await this.deps.sessions.issue(user, config.teamId, { viaSso: true });
    await this.deps.repository.update(config.teamId, { last_sign_in_at: now, last_error: null, last_error_at: null });
    const outcome = joined ? 'joined' : 'signed_in';
    await this.record(config.teamId, { userId: user.id, email: user.email, name: user.name, outcome, error: null });
    return { kind: 'signed_in', teamId: config.teamId, user, joined, role, issued };
  }

  /** The active single sign-on covering an address's domain, on a plan that includes it. */
  private async inUseFor(email: string): Promise<SsoConfiguration | undefined> {
    const config = await this.deps.repository.findByDomain(domainOf(email));
    if (!config?.active || !(await this.covers(config, domainOf(email)))) return undefined;
    return (await this.deps.findTeam(config.teamId))?.plan.sso ? config : undefined;
  }

  /**
   * Whether the team vouches for addresses of `domain`: covered, and still a verified domain of
   * the team (a domain claimed away by another team since is not the old team's to sign in).
   */
  private async covers(config: SsoConfiguration, domain: string): Promise<boolean> {
    return config.domains.includes(domain) && (await this.deps.verifiedDomains(config.teamId)).includes(domain);
  }

  private async markFailing(teamId: string, err: SsoFlowError): Promise<void> {
    const now = this.deps.clock.now();
    await this.deps.repository.update(teamId, {
      last_error: `${err.code}: ${err.message}`.slice(0, 500),
      last_error_at: now,
    });
  }

  private async record(
    teamId: string,
    signIn: Pick<SsoSignIn, 'userId' | 'email' | 'name' | 'outcome' | 'error'>,
  ): Promise<void> {
    await this.deps.repository.recordSignIn({ id: newId(), teamId, createdAt: this.deps.clock.now(), ...signIn });
  }
}

function failed(
  purpose: SsoPurpose,
  teamId: string | null,
  email: string | null,
  code: SsoFlowError['code'],
  message: string,
): SsoCallbackOutcome {
  return { kind: 'failed', purpose, teamId, email, error: new SsoFlowError(code, message) };
}
