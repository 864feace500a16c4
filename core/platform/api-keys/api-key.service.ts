import type { Knex } from 'knex';
import type { LookupCache } from '../../../lib/cache/lookup-cache.js';
import type { Clock } from '../../../lib/clock.js';
import {
  InvalidApiKeyError,
  NotFoundError,
  RevokedApiKeyError,
  SuspendedApiKeyError,
  UnprocessableValidationError,
} from '../../../lib/errors.js';
import { newId } from '../../../lib/ids.js';
import type { Audience, Caller } from '../auth/caller.js';
import { TeamRepository } from '../teams/team.repository.js';
import type { Team } from '../teams/team.types.js';
import { ApiKeyRepository, type ApiKeyFilter } from './api-key.repository.js';
import type { CreateApiKeyInput } from './api-key.schemas.js';
import { generateApiKeyToken, hashToken, keyPrefixOf, TOKEN_PREFIXES } from './api-key.tokens.js';
import type { ApiKey, ApiKeyStatus } from './api-key.types.js';

export class ApiKeyService {
  private readonly keys: ApiKeyRepository;
  private readonly teams: TeamRepository;
  /** Resolves OAuth access tokens (svco_); set by acceptOAuthTokens once the OAuth group exists. */
  private oauthTokens: ((token: string, audience: Audience) => Promise<Caller>) | null = null;

  constructor(
    private readonly deps: {
      knex: Knex;
      clock: Clock;
      findVerifiedDomain: (teamId: string, id: string) => Promise<{ id: string } | undefined>;
      /** Key and team rows by token hash, briefly (every request authenticates). */
      cache: LookupCache;
    },
  ) {
    this.keys = new ApiKeyRepository(deps.knex);
    this.teams = new TeamRepository(deps.knex);
  }

  /** The token is returned here once; only its hash is stored. */
  async create(teamId: string, input: CreateApiKeyInput, trx?: Knex): Promise<{ id: string; token: string }> {
    // A pin must name a verified domain of this team (another team's id reads as unknown).
    if (input.domain_id !== undefined && !(await this.deps.findVerifiedDomain(teamId, input.domain_id))) {
      throw new UnprocessableValidationError('domain_id must be a verified domain of this team', {
        errors: [{ path: 'domain_id', message: 'is not a verified domain of this team' }],
      });
    }
    const token = generateApiKeyToken();
    const id = newId();
    await this.keys.insert(
      {
        id,
        teamId,
        name: input.name,
        permission: input.permission,
        domainId: input.permission === 'sending_access' ? (input.domain_id?.toLowerCase() ?? null) : null,
        keyPrefix: keyPrefixOf(token),
        tokenHash: hashToken(token),
        status: 'active',
        createdAt: this.deps.clock.now(),
      },
      trx,
    );
    return { id, token };
  }

  async list(teamId: string, filter: ApiKeyFilter) {
    return this.keys.list(teamId, filter);
  }

  async get(teamId: string, id: string, trx?: Knex): Promise<ApiKey> {
    const key = await this.repository(trx).findInTeam(teamId, id.toLowerCase());
    if (!key) throw new NotFoundError('API key not found');
    return key;
  }

  async rename(teamId: string, id: string, name: string): Promise<ApiKey> {
    const key = await this.get(teamId, id);
    await this.keys.rename(key.id, name);
    return { ...key, name };
  }

  /** Revocation takes effect on the next request; the row is kept. Revoking twice is harmless. */
  async revoke(teamId: string, id: string): Promise<ApiKey> {
    const key = await this.get(teamId, id);
    if (key.status !== 'revoked') await this.keys.setStatus(key.id, 'revoked', this.deps.clock.now());
    return { ...key, status: 'revoked' };
  }

  /** Operator action: suspend or reactivate a key. A revoked key stays revoked. */
  async setSuspended(teamId: string, id: string, suspended: boolean, trx?: Knex): Promise<ApiKey> {
    const key = await this.get(teamId, id, trx);
    if (key.status === 'revoked') throw new RevokedApiKeyError('A revoked key cannot be suspended or reactivated');
    const status: ApiKeyStatus = suspended ? 'suspended' : 'active';
    await this.repository(trx).setStatus(key.id, status, this.deps.clock.now());
    return { ...key, status };
  }

  /** The keys table in the caller's transaction, or on the service's connection. */
  private repository(trx?: Knex): ApiKeyRepository {
    return trx ? new ApiKeyRepository(trx) : this.keys;
  }

  /**
   * Resolves a bearer token to its key and team, refusing as the spec says: unknown 401
   * invalid_api_key, revoked 403 restricted_api_key, suspended key or team 403 suspended_api_key.
   * `audience` is the resource the token is presented to: an OAuth access token issued for
   * another one is 401 invalid_api_key (RFC 8707). Keys are the REST API's credential.
   */
  async authenticate(token: string, audience: Audience = 'api'): Promise<Caller> {
    if (token.startsWith(TOKEN_PREFIXES.accessToken)) {
      if (!this.oauthTokens) throw new InvalidApiKeyError('API key is invalid');
      return this.oauthTokens(token, audience);
    }
    const tokenHash = hashToken(token);
    const cacheKey = `api-key:${tokenHash}`;
    const found = await this.deps.cache.get(cacheKey, () => this.findWithTeam(tokenHash));
    if (!found) throw new InvalidApiKeyError('API key is invalid');
    const { key, team } = found;
    if (key.status === 'revoked') throw new RevokedApiKeyError('This API key has been revoked');
    if (key.status === 'suspended') throw new SuspendedApiKeyError('This API key is suspended');
    if (team.riskState === 'suspended') throw new SuspendedApiKeyError('This team is suspended');
    // last_used_at moves at most once a minute: skip the write when the row says it is fresh.
    const now = this.deps.clock.now();
    if (!key.lastUsedAt || now.getTime() - key.lastUsedAt.getTime() >= 60_000) {
      await this.keys.touch(key.id, now);
      this.deps.cache.update(cacheKey, { key: Object.freeze({ ...key, lastUsedAt: now }), team });
    }
    return { team, apiKey: key, scopes: null };
  }

  /**
   * Lets OAuth access tokens authenticate wherever a key does, as a Caller with scopes (core/oauth
   * answers; wired in app/services.ts, so neither group imports the other's service).
   */
  acceptOAuthTokens(authenticate: (token: string, audience: Audience) => Promise<Caller>): void {
    this.oauthTokens = authenticate;
  }

  /** The key and its team; undefined when either is gone. Cached rows are shared: frozen. */
  private async findWithTeam(tokenHash: string): Promise<{ key: ApiKey; team: Team } | undefined> {
    const key = await this.keys.findByTokenHash(tokenHash);
    const team = key ? await this.teams.findById(key.teamId) : undefined;
    return key && team ? { key: Object.freeze(key), team: Object.freeze(team) } : undefined;
  }
}
