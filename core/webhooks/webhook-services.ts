import { readFileSync } from 'node:fs';
import type { Knex } from 'knex';
import type { Clock } from '../../lib/clock.js';
import type { Config } from '../../lib/config/config.schema.js';
import { SecretBox } from '../../lib/crypto/secret-box.js';
import type { DnsLookup } from '../../lib/dns/dns-resolver.js';
import { AddressPolicy } from '../../lib/net/address-policy.js';
import type { EventService } from '../events/event.service.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';
import { WebhookEventService } from './webhook-event.service.js';
import type { WebhookOutbox } from './webhook-outbox.js';
import type { TargetRules } from './webhook-target.js';
import { WebhookService } from './webhook.service.js';
import type { WebhookSettings } from './webhook.types.js';

export type WebhookInfrastructure = {
  knex: Knex;
  clock: Clock;
  config: Config;
  lookup: DnsLookup;
  masterKey: string;
  events: EventService;
  outbox: WebhookOutbox;
};

/** The webhook services of a process, built from the `webhooks` configuration. */
export function createWebhookServices(infra: WebhookInfrastructure) {
  const { knex, clock, config, events, outbox } = infra;
  const settings: WebhookSettings = { ...config.webhooks, ca: config.webhooks.caFile ? readFileSync(config.webhooks.caFile, 'utf8') : undefined };
  // The same rules at create/update and before every attempt (DNS may have changed since).
  const rules: TargetRules = { lookup: infra.lookup, policy: new AddressPolicy(settings.allowAddresses), allowHttp: settings.allowHttp };
  const secrets = new SecretBox(infra.masterKey);
  const webhooks = new WebhookService({ knex, clock, secrets, outbox, rules, secretGraceSeconds: settings.secretGraceSeconds });
  return {
    webhooks,
    webhookEvents: new WebhookEventService({ knex, clock, events, endpoints: webhooks }),
    webhookDispatcher: new WebhookDispatcher({ knex, clock, events, secrets, outbox, rules, settings }),
  };
}
