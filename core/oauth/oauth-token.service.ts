import type { Knex } from 'knex';
import type { Clock } from '../../lib/clock.js';
import { InvalidApiKeyError, SuspendedApiKeyError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import type { Audience, Caller } from '../platform/auth/caller.js';
import { KEY_PREFIX_LENGTH } from '../platform/api-keys/api-key.tokens.js';
import { TeamRepository } from '../platform/teams/team.repository.js';
import { OAuthClientRepository } from './oauth-client.repository.js';
import { OAuthGrantRepository } from './oauth-grant.repository.js';
import { OAuthTokenRepository } from './oauth-token.repository.js';
import { OAuthError } from './oauth.errors.js';
import { formatScope, isSubset, parseScope } from './oauth.scopes.js';
import { CODE_CHALLENGE, generateToken, hashToken, TOKEN_PREFIXES, verifierMatches } from './oauth.tokens.js';
import type { ResourceIndicators } from './resource-indicators.js';
import {
  ACCESS_TOKEN_SECONDS,
  CODE_SECONDS,
  type OAuthClient,
  type OAuthGrant,
  type TokenResponse,
} from './oauth.types.js';

/** Token endpoint and revocation parameters, one value each (the route refuses repeats). */
export type OAuthParams = Record<string, string | undefined>;

export type IssueCodeInput = {
  clientId: string;
  teamId: string;
  userId: string | null;
  scopes: string[];
  redirectUri: string;
  codeChallenge: string;
  resource: string | null;
};

const invalidGrant = (description: string) => new OAuthError('invalid_grant', description);
const invalidTarget = (description: string) => new OAuthError('invalid_target', description);

/**
 * Codes and tokens under grants, as the spec's state table moves them: a code is used once (a
 * second presentation revokes the whole grant), a refresh rotates (a rotated token presented
 * again revokes the whole grant), revocation takes an access token alone or a refresh token with
 * its family. Refresh tokens do not expire on their own: a grant ends only when the team revokes
 * it or the client is deleted (spec), and rotation with replay detection guards them.
 */
export class OAuthTokenService {
  private readonly clients: OAuthClientRepository;
  private readonly grants: OAuthGrantRepository;
  private readonly tokens: OAuthTokenRepository;
  private readonly teams: TeamRepository;

  constructor(private readonly deps: { knex: Knex; clock: Clock; resources: ResourceIndicators }) {
    this.clients = new OAuthClientRepository(deps.knex);
    this.grants = new OAuthGrantRepository(deps.knex);
    this.tokens = new OAuthTokenRepository(deps.knex);
    this.teams = new TeamRepository(deps.knex);
  }

  /**
   * What the consent page calls once the person approves: a new grant and its code (svcc_,
   * 10 minutes, single use). The page then redirects with `code` and `state` (redirectWith).
   */
  async issueCode(input: IssueCodeInput): Promise<{ code: string; grantId: string }> {
    const client = await this.clients.find(input.clientId);
    if (!client) throw new OAuthError('invalid_client', 'Unknown client');
    if (!client.redirectUris.includes(input.redirectUri))
      throw new OAuthError('invalid_request', 'redirect_uri is not registered for this client');
    if (input.scopes.length === 0 || !isSubset(input.scopes, client.scopes))
      throw new OAuthError('invalid_scope', 'scopes must be a non-empty subset of the client’s');
    if (!CODE_CHALLENGE.test(input.codeChallenge)) throw new OAuthError('invalid_request', 'bad code_challenge');
    if (input.resource !== null && !this.deps.resources.audienceOf(input.resource))
      throw invalidTarget('resource names nothing of this server');
    const now = this.deps.clock.now();
    const grant: OAuthGrant = {
      ...{ id: newId(), clientId: client.id, teamId: input.teamId, userId: input.userId, scopes: [...input.scopes] },
      ...{ resource: input.resource, createdAt: now, lastUsedAt: null, revokedAt: null },
    };
    const code = generateToken(TOKEN_PREFIXES.authorizationCode);
    await this.deps.knex.transaction(async (trx) => {
      await this.grants.insert(grant, trx);
      await this.tokens.insertCode(
        {
          ...{ codeHash: hashToken(code), grantId: grant.id, redirectUri: input.redirectUri },
          ...{ codeChallenge: input.codeChallenge, resource: input.resource, createdAt: now },
          expiresAt: new Date(now.getTime() + CODE_SECONDS * 1000),
        },
        trx,
      );
    });
    return { code, grantId: grant.id };
  }

  /** POST /oauth/token: grant_type decides. */
  async token(params: OAuthParams): Promise<TokenResponse> {
    const grantType = params.grant_type;
    if (!grantType) throw new OAuthError('invalid_request', 'grant_type is required');
    if (grantType !== 'authorization_code' && grantType !== 'refresh_token')
      throw new OAuthError('unsupported_grant_type', 'grant_type must be authorization_code or refresh_token');
    const client = await this.requireClient(params.client_id);
    if (!client.grantTypes.includes(grantType))
      throw new OAuthError('unauthorized_client', `This client is not registered for ${grantType}`);
    return grantType === 'authorization_code' ? this.exchangeCode(client, params) : this.refresh(client, params);
  }

  private async exchangeCode(client: OAuthClient, params: OAuthParams): Promise<TokenResponse> {
    const { code, redirect_uri: redirectUri, code_verifier: verifier } = params;
    for (const [name, value] of Object.entries({ code, redirect_uri: redirectUri, code_verifier: verifier }))
      if (!value) throw new OAuthError('invalid_request', `${name} is required`);
    const hash = hashToken(code!);
    const row = await this.tokens.findCode(hash);
    const grant = row ? await this.grants.find(row.grantId) : undefined;
    if (!row || !grant || grant.clientId !== client.id || grant.revokedAt)
      throw invalidGrant('The code is unknown, expired, used, or was issued to another client');
    // Before the code is spent: naming another resource is a refused request, not a used code.
    this.checkResource(params, grant);
    const now = this.deps.clock.now();
    // The code is spent by this presentation whatever follows; a replay, or a failed exchange
    // (the code is then useless), ends the grant and every token it produced.
    const outcome = await this.deps.knex.transaction(async (trx) => {
      if (!(await this.tokens.consumeCode(hash, now, trx))) {
        await this.grants.revoke({ id: grant.id }, now, trx);
        return 'The code was already used: the grant and its tokens are revoked';
      }
      const problem =
        row.expiresAt <= now
          ? 'The code has expired'
          : row.redirectUri !== redirectUri
            ? 'redirect_uri does not match the authorization request'
            : !verifierMatches(verifier!, row.codeChallenge)
              ? 'code_verifier does not match the code_challenge'
              : null;
      if (problem) {
        await this.grants.revoke({ id: grant.id }, now, trx);
        return problem;
      }
      return this.issuePair(grant, grant.scopes, now, trx);
    });
    if (typeof outcome === 'string') throw invalidGrant(outcome);
    return outcome;
  }

  private async refresh(client: OAuthClient, params: OAuthParams): Promise<TokenResponse> {
    if (!params.refresh_token) throw new OAuthError('invalid_request', 'refresh_token is required');
    const hash = hashToken(params.refresh_token);
    const row = await this.tokens.findToken(hash);
    const grant = row?.kind === 'refresh' ? await this.grants.find(row.grantId) : undefined;
    if (!row || !grant || grant.clientId !== client.id || grant.revokedAt)
      throw invalidGrant('The refresh token is unknown, revoked, or was issued to another client');
    const now = this.deps.clock.now();
    if (row.rotatedAt) {
      await this.grants.revoke({ id: grant.id }, now);
      throw invalidGrant('The refresh token was already used: the grant and its tokens are revoked');
    }
    if (row.revokedAt) throw invalidGrant('The refresh token was revoked');
    let scopes = grant.scopes;
    if (params.scope !== undefined) {
      const asked = parseScope(params.scope);
      if (!asked || !isSubset(asked, grant.scopes))
        throw new OAuthError('invalid_scope', 'scope may only narrow what the grant holds');
      scopes = asked;
    }
    this.checkResource(params, grant);
    const outcome = await this.deps.knex.transaction(async (trx) => {
      // Lost a race with another rotation of the same token: that is a replay too.
      if (!(await this.tokens.rotate(hash, now, trx))) {
        await this.grants.revoke({ id: grant.id }, now, trx);
        return null;
      }
      return this.issuePair(grant, scopes, now, trx);
    });
    if (!outcome) throw invalidGrant('The refresh token was already used: the grant and its tokens are revoked');
    return outcome;
  }

  /**
   * RFC 8707 2.2 at the token endpoint: `resource` is optional (the grant's is used), and when
   * given must name the grant's own resource. A grant has one, so a refresh may keep it but never
   * change it, and a grant approved without one (the REST API) may name the REST API only.
   */
  private checkResource(params: OAuthParams, grant: OAuthGrant): void {
    if (params.resource === undefined) return;
    const asked = this.deps.resources.audienceOf(params.resource);
    if (!asked)
      throw invalidTarget(
        'resource must be the absolute URI of this server’s API or of its /mcp route, without a query or fragment',
      );
    if (asked !== this.deps.resources.audienceOfGrant(grant.resource))
      throw invalidTarget('resource must be the one the authorization was granted for');
  }

  /** A new access token (with `scopes`) and refresh token (with the grant's scopes). */
  private async issuePair(grant: OAuthGrant, scopes: string[], now: Date, trx: Knex): Promise<TokenResponse> {
    const access = generateToken(TOKEN_PREFIXES.accessToken);
    const refresh = generateToken(TOKEN_PREFIXES.refreshToken);
    await this.tokens.insertTokens(
      [
        {
          ...{ tokenHash: hashToken(access), grantId: grant.id, kind: 'access', scopes, createdAt: now },
          expiresAt: new Date(now.getTime() + ACCESS_TOKEN_SECONDS * 1000),
        },
        {
          tokenHash: hashToken(refresh),
          grantId: grant.id,
          kind: 'refresh',
          scopes: grant.scopes,
          createdAt: now,
          expiresAt: null,
        },
      ],
      trx,
    );
    return {
      access_token: access,
      token_type: 'Bearer',
      expires_in: ACCESS_TOKEN_SECONDS,
      refresh_token: refresh,
      scope: formatScope(scopes),
    };
  }

  /**
   * RFC 7009 for public clients: the client must be known, and then the answer is the same
   * whatever the token was (unknown, expired, already revoked, another client's). An access
   * token goes alone; a refresh token takes every token of its grant, which stays.
   */
  async revoke(params: OAuthParams): Promise<void> {
    if (!params.token) throw new OAuthError('invalid_request', 'token is required');
    const client = await this.requireClient(params.client_id);
    const hash = hashToken(params.token);
    const row = await this.tokens.findToken(hash);
    const grant = row ? await this.grants.find(row.grantId) : undefined;
    if (!row || !grant || grant.clientId !== client.id) return;
    const now = this.deps.clock.now();
    if (row.kind === 'access') await this.tokens.revokeOne(hash, now);
    else await this.tokens.revokeAllOfGrant(grant.id, now);
  }

  /**
   * An access token as the caller of `audience` (the REST API unless told): the grant's team, a
   * stand-in full_access key (id = the grant's, so request logs group a grant's calls), and the
   * token's scopes, which the pipeline checks per route. Anything not live, and a token issued
   * for another resource (RFC 8707; MCP: a server accepts only tokens issued for it), is 401
   * invalid_api_key, as the spec says of a token that matches no live token.
   */
  async authenticate(token: string, audience: Audience = 'api'): Promise<Caller> {
    const row = await this.tokens.findToken(hashToken(token));
    const now = this.deps.clock.now();
    const live = row && row.kind === 'access' && !row.revokedAt && row.expiresAt && row.expiresAt > now;
    const grant = live ? await this.grants.find(row.grantId) : undefined;
    if (!row || !grant || grant.revokedAt)
      throw new InvalidApiKeyError('The access token is invalid, expired or revoked');
    if (this.deps.resources.audienceOfGrant(grant.resource) !== audience) {
      throw new InvalidApiKeyError(
        `The access token was not issued for this resource: ask for one with resource=${this.deps.resources.identifier(audience)}`,
      );
    }
    const team = await this.teams.findById(grant.teamId);
    if (!team) throw new InvalidApiKeyError('The access token is invalid, expired or revoked');
    if (team.riskState === 'suspended') throw new SuspendedApiKeyError('This team is suspended');
    if (!grant.lastUsedAt || now.getTime() - grant.lastUsedAt.getTime() >= 60_000)
      await this.grants.touch(grant.id, now);
    return {
      team,
      apiKey: {
        ...{ id: grant.id, teamId: grant.teamId, name: `OAuth client ${grant.clientId}`, permission: 'full_access' },
        ...{
          domainId: null,
          keyPrefix: token.slice(0, KEY_PREFIX_LENGTH),
          status: 'active',
          createdAt: grant.createdAt,
        },
        ...{ lastUsedAt: grant.lastUsedAt, lastUsedRequestLogId: null },
      },
      scopes: row.scopes,
      oauth: { clientId: grant.clientId },
    };
  }

  private async requireClient(clientId: string | undefined): Promise<OAuthClient> {
    if (!clientId) throw new OAuthError('invalid_request', 'client_id is required');
    const client = await this.clients.find(clientId);
    if (!client) throw new OAuthError('invalid_client', 'The client is unknown or was deleted');
    return client;
  }
}
