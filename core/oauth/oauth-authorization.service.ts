import { randomBytes } from 'node:crypto';
import type { KeyValueStore } from '../../lib/kv/kv.js';
import { validateAuthorizeRequest, type AuthorizationRequest, type AuthorizeOutcome } from './authorize-request.js';
import { OAuthClientRepository } from './oauth-client.repository.js';
import type { ResourceIndicators } from './resource-indicators.js';
import { PENDING_REQUEST_SECONDS } from './oauth.types.js';
import type { Knex } from 'knex';

export type AuthorizeResult =
  | Exclude<AuthorizeOutcome, { kind: 'valid' }>
  /** Valid: kept under requestId for the consent page, which shows it and calls issueCode. */
  | { kind: 'consent'; requestId: string; request: AuthorizationRequest };

const KEY = 'oauth:authorize:';

/**
 * GET /oauth/authorize: validates the request and parks a valid one for the consent page. The
 * parked request lives in the key-value store (Redis when configured, so any API node's page
 * finds it) for 10 minutes; its id is random and opaque, and it carries nothing secret.
 */
export class OAuthAuthorizationService {
  private readonly clients: OAuthClientRepository;

  constructor(private readonly deps: { knex: Knex; kv: KeyValueStore; resources: ResourceIndicators }) {
    this.clients = new OAuthClientRepository(deps.knex);
  }

  async start(query: Record<string, string | string[] | undefined>): Promise<AuthorizeResult> {
    const clientId = typeof query.client_id === 'string' ? query.client_id : undefined;
    const client = clientId ? await this.clients.find(clientId) : undefined;
    const outcome = validateAuthorizeRequest(query, client, (resource) => this.deps.resources.audienceOf(resource));
    if (outcome.kind !== 'valid') return outcome;
    const requestId = randomBytes(24).toString('base64url');
    await this.deps.kv.setIfAbsent(KEY + requestId, JSON.stringify(outcome.request), PENDING_REQUEST_SECONDS * 1000);
    return { kind: 'consent', requestId, request: outcome.request };
  }

  /** The parked request behind a consent page's `request` id; undefined once expired or unknown. */
  async pending(requestId: string): Promise<AuthorizationRequest | undefined> {
    const stored = await this.deps.kv.get(KEY + requestId);
    return stored ? (JSON.parse(stored) as AuthorizationRequest) : undefined;
  }

  /**
   * Takes the person's answer to a parked request, once: the first answer claims the request
   * (a marker set only if absent, so two tabs or a double click cannot both get a code) and
   * forgets it. Undefined when the request expired, is unknown, or was answered already.
   */
  async answer(requestId: string): Promise<AuthorizationRequest | undefined> {
    const request = await this.pending(requestId);
    if (!request) return undefined;
    const first = await this.deps.kv.setIfAbsent(`${KEY}answered:${requestId}`, '1', PENDING_REQUEST_SECONDS * 1000);
    if (!first) return undefined;
    await this.deps.kv.delete(KEY + requestId);
    return request;
  }
}
