import type { Knex } from 'knex';
import type { Clock } from '../../lib/clock.js';
import { validateClientMetadata } from './client-metadata.js';
import { OAuthClientRepository } from './oauth-client.repository.js';
import { OAuthGrantRepository } from './oauth-grant.repository.js';
import { OAuthError } from './oauth.errors.js';
import { generateClientId, generateToken, hashToken, TOKEN_PREFIXES } from './oauth.tokens.js';
import type { OAuthClient } from './oauth.types.js';

export type RegistrationLimits = { perIpPerHour: number; perDay: number };

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/**
 * Dynamic client registration (RFC 7591) and its management with the registration access token
 * (RFC 7592). The limits count stored registrations (deleted ones included) over a sliding
 * window, so they are exact, shared by every node, and follow the service clock.
 */
export class OAuthClientService {
  private readonly clients: OAuthClientRepository;
  private readonly grants: OAuthGrantRepository;

  constructor(private readonly deps: { knex: Knex; clock: Clock; limits: RegistrationLimits }) {
    this.clients = new OAuthClientRepository(deps.knex);
    this.grants = new OAuthGrantRepository(deps.knex);
  }

  /** Registers a client; the registration access token is returned here once, stored hashed. */
  async register(body: unknown, ip: string): Promise<{ client: OAuthClient; registrationToken: string }> {
    const metadata = validateClientMetadata(body);
    const address = normaliseIp(ip);
    await this.checkLimits(address);
    const registrationToken = generateToken(TOKEN_PREFIXES.registrationToken);
    const id = generateClientId();
    const at = this.deps.clock.now();
    await this.clients.insert({ id, metadata, registrationTokenHash: hashToken(registrationToken), ip: address, at });
    return { client: { id, ...metadata, createdAt: at, deletedAt: null }, registrationToken };
  }

  /**
   * The client a registration access token manages. Missing, malformed, unknown, another
   * client's, a deleted client's, or an API key: one answer, 401 invalid_token (RFC 7592 3),
   * so the route tells nobody which client ids exist.
   */
  async authorize(clientId: string, bearer: string | null): Promise<OAuthClient> {
    const refused = new OAuthError('invalid_token', 'A valid registration access token for this client is required');
    if (!bearer || !bearer.startsWith(TOKEN_PREFIXES.registrationToken)) throw refused;
    const client = await this.clients.findByRegistrationToken(hashToken(bearer));
    if (!client || client.id !== clientId) throw refused;
    return client;
  }

  /** RFC 7592 2.2: the body replaces every field; client_id must name this client. */
  async replace(client: OAuthClient, body: unknown): Promise<OAuthClient> {
    const clientId = (body as { client_id?: unknown } | null)?.client_id;
    if (clientId !== client.id) throw new OAuthError('invalid_client_metadata', 'client_id must be this client’s id');
    const metadata = validateClientMetadata(body);
    await this.clients.replace(client.id, metadata, this.deps.clock.now());
    return { ...client, ...metadata };
  }

  /** Deleting a client ends every grant it holds, and every token under them, at once. */
  async delete(client: OAuthClient): Promise<void> {
    const at = this.deps.clock.now();
    await this.deps.knex.transaction(async (trx) => {
      await this.clients.markDeleted(client.id, at, trx);
      await this.grants.revoke({ clientId: client.id }, at, trx);
    });
  }

  async find(clientId: string): Promise<OAuthClient | undefined> {
    return this.clients.find(clientId);
  }

  /** 10 per address per hour and 1,000 a day platform-wide (configurable): 429 with Retry-After. */
  private async checkLimits(ip: string): Promise<void> {
    const now = this.deps.clock.now().getTime();
    const { perIpPerHour, perDay } = this.deps.limits;
    const fromIp = await this.clients.countSince(new Date(now - HOUR_MS), ip);
    if (fromIp.count >= perIpPerHour)
      throw tooMany(`at most ${perIpPerHour} registrations per address per hour`, fromIp.oldest, HOUR_MS, now);
    const overall = await this.clients.countSince(new Date(now - DAY_MS), null);
    if (overall.count >= perDay)
      throw tooMany(`at most ${perDay} registrations a day on this server`, overall.oldest, DAY_MS, now);
  }
}

/** The spec's invalid_request at 429 means "over the limit"; Retry-After says when the oldest counted one leaves the window. */
function tooMany(rule: string, oldest: Date | null, windowMs: number, now: number): OAuthError {
  const seconds = oldest ? Math.ceil((oldest.getTime() + windowMs - now) / 1000) : 1;
  return new OAuthError('invalid_request', `Too many registrations: ${rule}`, {
    status: 429,
    headers: { 'retry-after': String(Math.max(1, seconds)) },
  });
}

/** An IPv4 client seen on a dual-stack socket counts as its IPv4 address. */
function normaliseIp(ip: string): string {
  return (ip.startsWith('::ffff:') ? ip.slice(7) : ip).slice(0, 64) || 'unknown';
}
