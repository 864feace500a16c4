import type { Knex } from 'knex';
import { hasOneWriter } from '../../../db/row-locks.js';
import { LookupCache } from '../../../lib/cache/lookup-cache.js';
import { newId } from '../../../lib/ids.js';
import type { EventFanOut } from '../log/event-log.js';
import type { EventType, LoggedEvent } from '../log/event.types.js';
import { WebhookDeliveryRepository } from './webhook-delivery.repository.js';
import { WebhookEndpointRepository } from './webhook-endpoint.repository.js';
import type { WebhookDelivery } from './webhook.types.js';

type Subscriptions = { endpoints: Array<{ id: string; events: EventType[] }> };

/** Rows per multi-row INSERT: 11 columns each, far inside the bound-variable limits. */
const OUTBOX_CHUNK = 100;

/** A new delivery of `event` to one endpoint: due at once, no attempt yet. */
export const outboxRow = (event: LoggedEvent, endpointId: string): WebhookDelivery => ({
  id: newId(),
  teamId: event.teamId,
  endpointId,
  eventId: event.id,
  eventType: event.type,
  status: 'pending',
  attempts: 0,
  nextAttemptAt: event.createdAt,
  leaseOwner: null,
  createdAt: event.createdAt,
  updatedAt: event.createdAt,
});

/**
 * Fills the webhook outbox in the transaction that records an event: one row per enabled
 * endpoint of the team subscribed to the type. Being in that transaction is what makes
 * delivery at-least-once without a cursor: the event and its deliveries commit together or not
 * at all. (A job scanning new events by id would miss events whose transaction commits after a
 * later id was already scanned.) The team's endpoint list is one indexed query per event,
 * kept briefly on MySQL; SQLite reads it every time (its one connection is the transaction's,
 * and a shared load could wait on it).
 */
export class WebhookOutbox implements EventFanOut {
  private readonly cache: LookupCache;

  constructor(cacheMs: number) {
    this.cache = new LookupCache(cacheMs);
  }

  /**
   * The same for many events recorded in one transaction (a settle of many emails): one endpoint
   * look-up per team, and multi-row INSERTs of OUTBOX_CHUNK rows.
   */
  async enqueueMany(trx: Knex, events: LoggedEvent[]): Promise<void> {
    const subscriptions = new Map<string, Subscriptions>();
    const rows: WebhookDelivery[] = [];
    for (const event of events) {
      if (!subscriptions.has(event.teamId))
        subscriptions.set(event.teamId, await this.subscriptions(trx, event.teamId));
      for (const endpoint of subscriptions.get(event.teamId)!.endpoints) {
        if (endpoint.events.includes(event.type)) rows.push(outboxRow(event, endpoint.id));
      }
    }
    const repository = new WebhookDeliveryRepository(trx);
    for (let i = 0; i < rows.length; i += OUTBOX_CHUNK) await repository.insertMany(rows.slice(i, i + OUTBOX_CHUNK));
  }

  /** An endpoint changed in this process: the next event reads the list again. */
  invalidate(): void {
    this.cache.invalidate();
  }

  private async subscriptions(trx: Knex, teamId: string): Promise<Subscriptions> {
    const load = async () => ({ endpoints: await new WebhookEndpointRepository(trx).enabledForTeam(teamId) });
    if (hasOneWriter(trx)) return load(); // in-process SQLite: a read costs less than keeping a cache fresh
    return (await this.cache.get(`webhook-endpoints:${teamId}`, load))!;
  }
}
