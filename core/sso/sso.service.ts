import type { Knex } from 'knex';
import { isUniqueViolation } from '../../db/errors.js';
import type { Clock } from '../../lib/clock.js';
import type { SecretBox } from '../../lib/crypto/secret-box.js';
import {
  ForbiddenValidationError,
  InvalidPermissionError,
  NotFoundError,
  UnprocessableValidationError,
} from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import type { SessionCaller } from '../accounts/account.types.js';
import type { AuditRecorder } from '../platform/audit/audit-log.service.js';
import { APPLIANCE_ACTOR } from '../platform/audit/audit.types.js';
import { findPlan, ssoPlanCodes } from '../platform/plans/plan.catalog.js';
import type { Team } from '../platform/teams/team.types.js';
import type { PageQuery } from '../shared/pagination/list-query.js';
import type { SsoFlowStore } from './sso-flow.store.js';
import type { SsoProviderClient } from './sso-provider.client.js';
import type { PatchSsoInput, PutSsoInput } from './sso.schemas.js';
import { SsoRepository, type ConfigChanges } from './sso.repository.js';
import { checkIssuer, providerSettings } from './sso-settings.js';
import {
  SSO_SIGN_IN_RETENTION_MS,
  ssoStatus,
  SsoFlowError,
  type SsoConfiguration,
  type SsoSignIn,
  type SsoSummary,
} from './sso.types.js';

export type SsoServiceDeps = {
  knex: Knex;
  clock: Clock;
  box: SecretBox;
  flows: SsoFlowStore;
  client: SsoProviderClient;
  /** The names of the team's verified sending domains (lower-cased). */
  verifiedDomains: (teamId: string) => Promise<string[]>;
  audit: AuditRecorder;
  /**
   * Ends the sessions, other than single sign-on ones, of the addresses on `domains` that may no
   * longer sign in with a password (the accounts group decides who keeps it); how many ended.
   */
  endPasswordSessions: (teamId: string, domains: readonly string[]) => Promise<number>;
};

/** A saved change, and how many password sessions its enforcement ended. */
export type SsoChange = { configuration: SsoConfiguration; passwordSessionsEnded: number };

const field = (path: string, message: string) => ({ errors: [{ path, message }] });

/**
 * What a team's owners and admins do with single sign-on, from a dashboard session only (the
 * routes are 'session' routes: no key or token reaches them). Changing the provider (issuer,
 * client id or secret) puts the configuration back to `configured`: a new test is needed
 * before it is used again.
 */
export class SsoService {
  readonly repository: SsoRepository;

  constructor(private readonly deps: SsoServiceDeps) {
    this.repository = new SsoRepository(deps.knex);
  }

  async get(session: SessionCaller): Promise<SsoConfiguration> {
    const team = adminTeam(session);
    const config = await this.repository.findByTeam(team.id);
    if (!config) throw new NotFoundError('Single sign-on is not configured for this team');
    return config;
  }

  /** The team object's `sso`, for any reader of the team (never the secret, never members). */
  async summary(teamId: string): Promise<SsoSummary | null> {
    const config = await this.repository.findByTeam(teamId);
    if (!config) return null;
    const { issuer, clientId, enforced, domains } = config;
    return { status: ssoStatus(config), issuer, clientId, enforced, domains };
  }

  async put(session: SessionCaller, input: PutSsoInput): Promise<SsoChange> {
    const team = adminTeam(session);
    assertPlanIncludesSso(team);
    const issuer = checkIssuer(input.issuer);
    const stale = await this.assertDomainsUsable(team.id, input.domains);
    const existing = await this.repository.findByTeam(team.id);
    if (!existing && input.client_secret === undefined)
      throw new UnprocessableValidationError(
        'client_secret is required the first time single sign-on is configured',
        field('client_secret', 'is required'),
      );
    await this.probe({ ...input, issuer }, existing);
    const now = this.deps.clock.now();
    await this.deps.knex
      .transaction(async (trx) => {
        if (!existing) await this.create(team.id, { ...input, issuer }, now, trx);
        else await this.repository.update(team.id, this.changesOf(existing, { ...input, issuer }, now), trx);
        await this.repository.release(stale, trx);
        await this.repository.setDomains(team.id, input.domains, now, trx);
      })
      .catch((err: unknown) => {
        // Another team took one of the domains between the check and the write.
        if (isUniqueViolation(err)) throw domainTaken(input.domains);
        throw err;
      });
    if (existing) this.deps.client.forget(existing.issuer);
    // Still enforced (only the domains changed): a newly covered domain's password sessions end.
    return this.enforced((await this.repository.findByTeam(team.id))!);
  }

  /** Starts a test round trip by the signed-in admin; the callback marks the configuration tested. */
  async startTest(session: SessionCaller): Promise<string> {
    const config = await this.get(session);
    assertPlanIncludesSso(session.team!);
    const settings = await providerSettings(this.deps.box, this.repository, config);
    const started = await this.deps.client.start(settings, null).catch(async (err: unknown) => {
      if (!(err instanceof SsoFlowError)) throw err;
      await this.markFailing(config.teamId, err.message);
      throw new UnprocessableValidationError(`The identity provider could not be used: ${err.message}`, {
        details: { reason: err.code },
      });
    });
    await this.deps.flows.save(started.state, {
      teamId: config.teamId,
      purpose: 'test',
      nonce: started.nonce,
      codeVerifier: started.codeVerifier,
      userId: session.user.id,
    });
    return started.url;
  }

  /** active needs a successful test; enforced needs active. Turning active off also unenforces. */
  async patch(session: SessionCaller, input: PatchSsoInput): Promise<SsoChange> {
    const config = await this.get(session);
    const active = input.active ?? config.active;
    const enforced = active ? (input.enforced ?? config.enforced) : false;
    if (input.active === true && !config.active) {
      assertPlanIncludesSso(session.team!);
      if (!config.testedAt)
        throw new UnprocessableValidationError(
          'Test single sign-on first (POST /team/sso/test): activating needs a successful round trip',
          field('active', 'needs a successful test'),
        );
    }
    if (input.enforced === true && !active)
      throw new UnprocessableValidationError(
        'Single sign-on must be active before it is enforced',
        field('enforced', 'needs active single sign-on'),
      );
    const now = this.deps.clock.now();
    const changes: ConfigChanges = { active, enforced, updated_at: now };
    if (active && !config.active) changes.activated_at = now;
    if (!active) changes.activated_at = null;
    await this.repository.update(config.teamId, changes);
    return this.enforced((await this.repository.findByTeam(config.teamId))!);
  }

  /**
   * An enforced configuration ends the password sessions of the addresses it covers, so that
   * enforcement means everyone but the owners signs in through the provider from now on, not
   * when their sessions run out. Idempotent: a second call finds none.
   */
  private async enforced(configuration: SsoConfiguration): Promise<SsoChange> {
    const passwordSessionsEnded =
      configuration.active && configuration.enforced
        ? await this.deps.endPasswordSessions(configuration.teamId, configuration.domains)
        : 0;
    return { configuration, passwordSessionsEnded };
  }

  async delete(session: SessionCaller): Promise<void> {
    const config = await this.get(session);
    await this.deps.knex.transaction((trx) => this.repository.delete(config.teamId, trx));
    this.deps.client.forget(config.issuer);
  }

  async signIns(session: SessionCaller, page: PageQuery): Promise<{ signIns: SsoSignIn[]; hasMore: boolean }> {
    return this.repository.signIns(adminTeam(session).id, page);
  }

  /** Whether the team has single sign-on set up (a plan change that drops it needs a signed-in admin). */
  async isConfigured(teamId: string, trx: Knex = this.deps.knex): Promise<boolean> {
    return Boolean(await this.repository.findByTeam(teamId, trx));
  }

  /**
   * The team's plan is now `planCode`: a plan without single sign-on takes it out of use (back to
   * `configured`, not enforced); the settings stay, for a later plan that includes it.
   */
  async planChanged(teamId: string, planCode: string, trx: Knex = this.deps.knex): Promise<boolean> {
    if (findPlan(planCode)?.sso) return false;
    const config = await this.repository.findByTeam(teamId, trx);
    if (!config || (!config.active && !config.testedAt && !config.enforced)) return false;
    const now = this.deps.clock.now();
    await this.repository.update(
      teamId,
      { active: false, enforced: false, tested_at: null, activated_at: null, updated_at: now },
      trx,
    );
    // The plan change itself is the caller's entry; taking SSO out of use is its consequence.
    await this.deps.audit.record(
      {
        teamId,
        actor: APPLIANCE_ACTOR,
        action: 'sso.deactivated',
        resource: { type: 'sso_configuration', id: config.id },
        metadata: { reason: 'plan_change', plan_code: planCode, was_enforced: config.enforced },
      },
      undefined,
      trx,
    );
    return true;
  }

  /** Retention: sign-in records past SSO_SIGN_IN_RETENTION_MS. */
  async purgeSignIns(): Promise<number> {
    return this.repository.deleteSignInsBefore(new Date(this.deps.clock.now().getTime() - SSO_SIGN_IN_RETENTION_MS));
  }

  async markFailing(teamId: string, error: string): Promise<void> {
    const now = this.deps.clock.now();
    await this.repository.update(teamId, { last_error: error.slice(0, 500), last_error_at: now });
  }

  private async create(teamId: string, input: PutSsoInput, now: Date, trx: Knex): Promise<void> {
    const config: SsoConfiguration = {
      ...{ id: newId(), teamId, issuer: input.issuer, clientId: input.client_id, domains: input.domains },
      ...{ active: false, enforced: false, testedAt: null, activatedAt: null, lastError: null, lastErrorAt: null },
      ...{ lastSignInAt: null, createdAt: now, updatedAt: now },
    };
    await this.repository.insert(config, this.deps.box.seal(input.client_secret!), trx);
  }

  /** A new issuer, client id or secret needs a new test: status back to configured, not enforced. */
  private changesOf(existing: SsoConfiguration, input: PutSsoInput, now: Date): ConfigChanges {
    const changes: ConfigChanges = { issuer: input.issuer, client_id: input.client_id, updated_at: now };
    if (input.client_secret !== undefined) changes.client_secret_sealed = this.deps.box.seal(input.client_secret);
    const providerChanged =
      input.issuer !== existing.issuer || input.client_id !== existing.clientId || input.client_secret !== undefined;
    if (!providerChanged) return changes;
    return {
      ...changes,
      ...{ active: false, enforced: false, tested_at: null, activated_at: null, last_error: null, last_error_at: null },
    };
  }

  /** The issuer must answer OpenID Connect Discovery now: a typo is caught here, not at the first sign-in. */
  private async probe(input: PutSsoInput, existing: SsoConfiguration | undefined): Promise<void> {
    const clientSecret =
      input.client_secret ??
      (existing ? (await providerSettings(this.deps.box, this.repository, existing)).clientSecret : '');
    await this.deps.client
      .probe({ issuer: input.issuer, clientId: input.client_id, clientSecret })
      .catch((err: unknown) => {
        if (!(err instanceof SsoFlowError)) throw err;
        throw new UnprocessableValidationError(`The issuer could not be used: ${err.message}`, {
          errors: [{ path: 'issuer', message: 'OpenID Connect Discovery failed at this issuer' }],
          details: { reason: err.code },
        });
      });
  }

  /**
   * Every covered domain must be a verified domain of the team, and covered by no other team that
   * still has it verified. Answers the domains whose other coverage is stale (the domain was
   * claimed away from that team): they pass to this team.
   */
  private async assertDomainsUsable(teamId: string, domains: string[]): Promise<string[]> {
    const verified = new Set(await this.deps.verifiedDomains(teamId));
    const unverified = domains.filter((domain) => !verified.has(domain));
    if (unverified.length > 0)
      throw new UnprocessableValidationError(
        `Single sign-on covers only verified domains of the team; not verified here: ${unverified.join(', ')}`,
        {
          errors: unverified.map((domain) => ({
            path: 'domains',
            message: `${domain} is not a verified domain of the team`,
          })),
          details: { reason: 'domain_unverified', domains: unverified },
        },
      );
    const others = await this.repository.coveredByOthers(teamId, domains);
    const held = await Promise.all(
      others.map(async ({ domain, teamId: other }) => (await this.deps.verifiedDomains(other)).includes(domain)),
    );
    const taken = others.filter((_, index) => held[index]).map(({ domain }) => domain);
    if (taken.length > 0) throw domainTaken(taken);
    return others.filter((_, index) => !held[index]).map(({ domain }) => domain);
  }
}

function domainTaken(domains: string[]) {
  return new UnprocessableValidationError(
    `Another team's single sign-on covers ${domains.join(', ')}: a domain is covered by one team only`,
    {
      errors: domains.map((domain) => ({ path: 'domains', message: `${domain} is covered by another team` })),
      details: { reason: 'domain_taken', domains },
    },
  );
}

/** The session's team, when its person may manage single sign-on (owner or admin). */
export function adminTeam(session: SessionCaller): Team {
  if (!session.team || (session.role !== 'owner' && session.role !== 'admin'))
    throw new InvalidPermissionError('Only an owner or admin of the current team manages single sign-on');
  return session.team;
}

/** Single sign-on comes with some plans only (plan.catalog.ts `sso`). */
export function assertPlanIncludesSso(team: Team): void {
  if (team.plan.sso) return;
  throw new ForbiddenValidationError(
    `Single sign-on is not included in the ${team.plan.name} plan: it comes with the ${ssoPlanCodes().join(' and ')} plans`,
    { details: { next: 'upgrade' } },
  );
}
