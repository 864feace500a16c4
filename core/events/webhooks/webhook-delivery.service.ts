import type { Knex } from 'knex';
import type { Clock } from '../../../lib/clock.js';
import { NotFoundError, UnprocessableValidationError } from '../../../lib/errors.js';
import { isUuid, newId } from '../../../lib/ids.js';
import type { UnitOfWork } from '../../../db/unit-of-work.js';
import type { EventLog } from '../log/event-log.js';
import type { LoggedEvent } from '../log/event.types.js';
import type { PageQuery } from '../../shared/pagination/list-query.js';
import { purgeByPlanRetention } from '../../platform/retention/plan-retention.js';
import { WebhookDeliveryRepository } from './webhook-delivery.repository.js';
import { outboxRow } from './webhook-outbox.js';
import { payloadOf } from './webhook-payload.js';
import { testEventData, testEventType } from './webhook-test-event.js';
import type { WebhookService } from './webhook.service.js';
import type {
  EmailWebhookDelivery,
  WebhookAttempt,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookPayload,
} from './webhook.types.js';

/** The default (and largest) page of GET /emails/{id}/webhook-deliveries. */
export const EMAIL_DELIVERIES_PAGE_LIMIT = 100;

/**
 * What an endpoint was sent: its deliveries (one per event, addressed by the event id, which is
 * also the webhook-id header), each delivery's attempts, and replay. Kept for the team plan's
 * retention window, like the events themselves.
 */
export class WebhookDeliveryService {
  private readonly repository: WebhookDeliveryRepository;

  constructor(private readonly deps: { knex: Knex; clock: Clock; events: EventLog; endpoints: WebhookService }) {
    this.repository = new WebhookDeliveryRepository(deps.knex);
  }

  /** Deliveries waiting to be posted (pending or attempting), for the metrics. */
  waitingCount(): Promise<number> {
    return this.repository.countWaiting();
  }

  async list(
    teamId: string,
    endpointId: string,
    page: PageQuery,
  ): Promise<{ deliveries: WebhookDelivery[]; hasMore: boolean }> {
    const endpoint = await this.deps.endpoints.find(teamId, endpointId);
    return this.repository.ofEndpoint(endpoint.id, page);
  }

  /**
   * The deliveries one email's events caused, oldest first, paged (at most
   * EMAIL_DELIVERIES_PAGE_LIMIT); the caller has checked that the email is the team's.
   */
  ofEmail(
    teamId: string,
    emailId: string,
    page: PageQuery,
  ): Promise<{ deliveries: EmailWebhookDelivery[]; hasMore: boolean }> {
    return this.repository.ofEmail(teamId, emailId, page, EMAIL_DELIVERIES_PAGE_LIMIT);
  }

  /** One delivery with the payload it POSTs. */
  async get(
    teamId: string,
    endpointId: string,
    eventId: string,
  ): Promise<{ delivery: WebhookDelivery; payload: WebhookPayload }> {
    const { delivery } = await this.find(teamId, endpointId, eventId);
    const event = await this.deps.events.find(delivery.eventId);
    // The event ran out of the retention window before its delivery log did (purges run apart).
    if (!event) throw new NotFoundError('Webhook event not found');
    return { delivery, payload: payloadOf(event) };
  }

  async attempts(
    teamId: string,
    endpointId: string,
    eventId: string,
    page: PageQuery,
  ): Promise<{ attempts: WebhookAttempt[]; hasMore: boolean }> {
    const { delivery } = await this.find(teamId, endpointId, eventId);
    return this.repository.attemptsOf(delivery.id, page);
  }

  /**
   * Sends the event to the endpoint again, with the same webhook-id, as soon as a worker is free,
   * with a fresh retry schedule. A disabled endpoint refuses (422 validation_error).
   */
  async replay(teamId: string, endpointId: string, eventId: string): Promise<WebhookDelivery> {
    const { endpoint, delivery } = await this.find(teamId, endpointId, eventId);
    if (endpoint.status !== 'enabled') {
      throw new UnprocessableValidationError(
        'This webhook endpoint is disabled: enable it (PATCH status enabled) before replaying events to it',
      );
    }
    if (!(await this.deps.events.find(delivery.eventId))) throw new NotFoundError('Webhook event not found');
    await this.repository.replay(delivery.id, this.deps.clock.now());
    return delivery;
  }

  /**
   * Sends the endpoint a test event (webhook-test-event.ts) through the ordinary path: an event
   * row and one delivery, written with the caller's unit of work, which the delivery workers sign,
   * post, retry and log like any other, so it is listed with its attempts. No other endpoint, no
   * follower of the event log, and no metric sees it. A disabled endpoint refuses (422
   * validation_error), as replay does.
   */
  async sendTest(teamId: string, endpointId: string, type: string | undefined, unit: UnitOfWork) {
    const endpoint = await this.deps.endpoints.find(teamId, endpointId);
    if (endpoint.status !== 'enabled') {
      throw new UnprocessableValidationError(
        'This webhook endpoint is disabled: enable it (PATCH status enabled) before sending it a test event',
      );
    }
    const chosen = testEventType(endpoint, type);
    const now = this.deps.clock.now();
    const event: LoggedEvent = { id: newId(), teamId, type: chosen, data: testEventData(chosen, now), createdAt: now };
    const delivery = outboxRow(event, endpoint.id);
    unit.write('webhook_test_events', { event, delivery }, this.writeTests);
    return { delivery, event };
  }

  private readonly writeTests = async (trx: Knex, tests: Array<{ event: LoggedEvent; delivery: WebhookDelivery }>) => {
    for (const { event } of tests) await this.deps.events.storeUnannounced(trx, event);
    await new WebhookDeliveryRepository(trx).insertMany(tests.map(({ delivery }) => delivery));
  };

  /** Deliveries and attempts older than each team's plan retention window. */
  async purgeExpired(batch = 1000): Promise<Record<string, number>> {
    const now = this.deps.clock.now();
    const attempts = await purgeByPlanRetention(this.deps.knex, 'webhook_attempts', now, batch);
    const deliveries = await purgeByPlanRetention(this.deps.knex, 'webhook_deliveries', now, batch);
    return { attempts, deliveries };
  }

  private async find(
    teamId: string,
    endpointId: string,
    eventId: string,
  ): Promise<{ endpoint: WebhookEndpoint; delivery: WebhookDelivery }> {
    const endpoint = await this.deps.endpoints.find(teamId, endpointId);
    const delivery = isUuid(eventId)
      ? await this.repository.findByEvent(endpoint.id, eventId.toLowerCase())
      : undefined;
    if (!delivery) throw new NotFoundError('Webhook event not found');
    return { endpoint, delivery };
  }
}
