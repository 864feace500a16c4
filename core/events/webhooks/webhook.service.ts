import type { Knex } from 'knex';
import type { Clock } from '../../../lib/clock.js';
import type { SecretBox } from '../../../lib/crypto/secret-box.js';
import { NotFoundError, UnprocessableValidationError } from '../../../lib/errors.js';
import { isUuid, newId } from '../../../lib/ids.js';
import { EVENT_TYPES, type EventType } from '../log/event.types.js';
import type { PageQuery } from '../../shared/pagination/list-query.js';
import type { Team } from '../../platform/teams/team.types.js';
import { WebhookDeliveryRepository } from './webhook-delivery.repository.js';
import { WebhookEndpointRepository, type EndpointChanges } from './webhook-endpoint.repository.js';
import type { WebhookOutbox } from './webhook-outbox.js';
import { newSigningSecret } from './webhook-signature.js';
import { resolveTarget, type TargetRules } from './webhook-target.js';
import type { CreateWebhookInput, UpdateWebhookInput } from './webhook.schemas.js';
import type { WebhookEndpoint } from './webhook.types.js';

export type WebhookServiceDeps = {
  knex: Knex;
  clock: Clock;
  secrets: SecretBox;
  outbox: WebhookOutbox;
  rules: TargetRules;
  secretGraceSeconds: number;
};

/** An endpoint with its current signing secret, opened (create, retrieve, rotate answer it). */
export type EndpointWithSecret = { endpoint: WebhookEndpoint; secret: string };

const subscribable = new Set<string>(EVENT_TYPES);

/**
 * Webhook endpoints of a team: create (URL checked to be routable, types to be subscribable,
 * plan limit), read, change, delete, and signing-secret rotation with a grace period.
 */
export class WebhookService {
  private readonly repository: WebhookEndpointRepository;

  constructor(private readonly deps: WebhookServiceDeps) {
    this.repository = new WebhookEndpointRepository(deps.knex);
  }

  async create(team: Team, input: CreateWebhookInput): Promise<EndpointWithSecret> {
    const limit = team.plan.limits.webhook_endpoint_limit;
    if ((await this.repository.countForTeam(team.id)) >= limit) {
      throw new UnprocessableValidationError(
        `The ${team.plan.name} plan allows ${limit} webhook endpoint(s); remove one or change plan`,
      );
    }
    const events = subscribableEvents(input.events);
    const url = await this.routableUrl(input.endpoint);
    const secret = newSigningSecret();
    const now = this.deps.clock.now();
    const endpoint: WebhookEndpoint = {
      id: newId(),
      teamId: team.id,
      url,
      events,
      status: 'enabled',
      disabledReason: null,
      secretSealed: this.deps.secrets.seal(secret),
      previousSecretSealed: null,
      previousSecretExpiresAt: null,
      failingSince: null,
      createdAt: now,
      updatedAt: now,
    };
    await this.repository.insert(endpoint);
    this.deps.outbox.invalidate();
    return { endpoint, secret };
  }

  async get(teamId: string, id: string): Promise<EndpointWithSecret> {
    const endpoint = await this.find(teamId, id);
    return { endpoint, secret: this.deps.secrets.open(endpoint.secretSealed) };
  }

  /** The current secret, and until when the previous one still signs (null outside a grace period). */
  async signingSecret(teamId: string, id: string): Promise<EndpointWithSecret & { previousExpiresAt: Date | null }> {
    const { endpoint, secret } = await this.get(teamId, id);
    const ends = endpoint.previousSecretSealed ? endpoint.previousSecretExpiresAt : null;
    return {
      endpoint,
      secret,
      previousExpiresAt: ends && ends.getTime() > this.deps.clock.now().getTime() ? ends : null,
    };
  }

  async find(teamId: string, id: string): Promise<WebhookEndpoint> {
    const endpoint = isUuid(id) ? await this.repository.findInTeam(teamId, id.toLowerCase()) : undefined;
    if (!endpoint) throw new NotFoundError('Webhook not found');
    return endpoint;
  }

  async list(teamId: string, page: PageQuery) {
    return this.repository.listForTeam(teamId, page);
  }

  /**
   * Changes URL, types or status. Enabling starts afresh (no run of failures carried over);
   * disabling ends the endpoint's waiting deliveries (failed; replay them once enabled again).
   */
  async update(teamId: string, id: string, input: UpdateWebhookInput): Promise<WebhookEndpoint> {
    const endpoint = await this.find(teamId, id);
    const now = this.deps.clock.now();
    const changes: EndpointChanges = { updatedAt: now };
    if (input.events !== undefined) changes.events = subscribableEvents(input.events);
    if (input.endpoint !== undefined) changes.url = await this.routableUrl(input.endpoint);
    if (input.status === 'enabled' && endpoint.status !== 'enabled')
      Object.assign(changes, { status: 'enabled', disabledReason: null, failingSince: null });
    if (input.status === 'disabled' && endpoint.status !== 'disabled')
      Object.assign(changes, { status: 'disabled', disabledReason: 'user' });
    await this.deps.knex.transaction(async (trx) => {
      await new WebhookEndpointRepository(trx).update(endpoint.id, changes);
      if (changes.status === 'disabled') await new WebhookDeliveryRepository(trx).failOpen(endpoint.id, now);
    });
    this.deps.outbox.invalidate();
    return { ...endpoint, ...changes };
  }

  /** Deletes the endpoint, then its delivery log (in batches: it may be long). */
  async remove(teamId: string, id: string): Promise<WebhookEndpoint> {
    const endpoint = await this.find(teamId, id);
    await this.repository.delete(endpoint.id);
    this.deps.outbox.invalidate();
    await new WebhookDeliveryRepository(this.deps.knex).deleteOfEndpoint(endpoint.id);
    return endpoint;
  }

  /**
   * A new signing secret. The previous one keeps signing beside it for the grace period (two
   * `v1,` entries in webhook-signature); rotating again within it ends the older one's grace.
   */
  async rotateSecret(teamId: string, id: string): Promise<EndpointWithSecret & { previousExpiresAt: Date | null }> {
    const endpoint = await this.find(teamId, id);
    const now = this.deps.clock.now();
    const secret = newSigningSecret();
    const grace = this.deps.secretGraceSeconds;
    const previousExpiresAt = grace > 0 ? new Date(now.getTime() + grace * 1000) : null;
    const changes: EndpointChanges = {
      secretSealed: this.deps.secrets.seal(secret),
      previousSecretSealed: previousExpiresAt ? endpoint.secretSealed : null,
      previousSecretExpiresAt: previousExpiresAt,
      updatedAt: now,
    };
    await this.repository.update(endpoint.id, changes);
    return { endpoint: { ...endpoint, ...changes }, secret, previousExpiresAt };
  }

  /** Refuses (422) a URL that is not https (unless allowed) or resolves to an internal address. */
  private async routableUrl(raw: string): Promise<string> {
    // Spaces around are forgiven; line breaks and other control characters are refused below.
    const url = raw.replace(/^ +| +$/g, '');
    const target = await resolveTarget(url, this.deps.rules);
    if (!target.ok)
      throw new UnprocessableValidationError(`Webhook endpoint refused: ${target.reason}`, {
        errors: [{ path: 'endpoint', message: target.reason }],
      });
    return url;
  }
}

/** The requested types, each once; any type outside the subscribable list is refused (422). */
function subscribableEvents(requested: string[]): EventType[] {
  const unknown = requested.flatMap((type, index) =>
    subscribable.has(type) ? [] : [{ path: `events.${index}`, message: `${type} is not a subscribable event type` }],
  );
  if (unknown.length > 0) {
    const names = unknown.map((e) => e.message.split(' ')[0]).join(', ');
    throw new UnprocessableValidationError(
      `Unknown event type${unknown.length > 1 ? 's' : ''}: ${names}. Subscribable types: ${EVENT_TYPES.join(', ')}`,
      { errors: unknown },
    );
  }
  return [...new Set(requested)] as EventType[];
}
