import { readFileSync } from 'node:fs';
import type { Knex } from 'knex';
import type { Clock } from '../../lib/clock.js';
import type { Config } from '../../lib/config/config.schema.js';
import { SecretBox } from '../../lib/crypto/secret-box.js';
import type { DnsLookup } from '../../lib/dns/dns-resolver.js';
import { AddressPolicy } from '../../lib/net/address-policy.js';
import { EventLog } from './log/event-log.js';
import { MetricsService } from './metrics/metric.service.js';
import { WebhookDispatcher } from './webhooks/webhook-dispatcher.js';
import { WebhookDeliveryService } from './webhooks/webhook-delivery.service.js';
import { WebhookOutbox } from './webhooks/webhook-outbox.js';
import type { TargetRules } from './webhooks/webhook-target.js';
import { WebhookService } from './webhooks/webhook.service.js';
import type { WebhookSettings } from './webhooks/webhook.types.js';

export type EventsInfrastructure = { knex: Knex; clock: Clock; config: Config; lookup: DnsLookup; masterKey: string };

/**
 * The events group: the event log every feature records into, the webhooks that announce it
 * (queued in the same transaction as the event), and the metrics counted from it.
 */
export function createEventsServices(infra: EventsInfrastructure) {
  const { knex, clock, config } = infra;
  const outbox = new WebhookOutbox(config.webhooks.endpointCacheMs);
  const events = new EventLog({ knex, clock, fanOut: outbox });
  const settings: WebhookSettings = {
    ...config.webhooks,
    ca: config.webhooks.caFile ? readFileSync(config.webhooks.caFile, 'utf8') : undefined,
  };
  // The same rules at create/update and before every attempt (DNS may have changed since).
  const rules: TargetRules = {
    lookup: infra.lookup,
    policy: new AddressPolicy(settings.allowAddresses),
    allowHttp: settings.allowHttp,
  };
  const secrets = new SecretBox(infra.masterKey);
  const webhooks = new WebhookService({
    knex,
    clock,
    secrets,
    outbox,
    rules,
    secretGraceSeconds: settings.secretGraceSeconds,
  });
  return {
    eventLog: events,
    webhooks,
    webhookDeliveries: new WebhookDeliveryService({ knex, clock, events, endpoints: webhooks }),
    webhookDispatcher: new WebhookDispatcher({ knex, clock, events, secrets, outbox, rules, settings }),
    metrics: new MetricsService({ knex, clock }),
  };
}

export type EventsServices = ReturnType<typeof createEventsServices>;
