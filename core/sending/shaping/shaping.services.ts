import type { Knex } from 'knex';
import type { Clock } from '../../../lib/clock.js';
import type { Config } from '../../../lib/config/config.schema.js';
import type { DnsLookup } from '../../../lib/dns/dns-resolver.js';
import type { KeyValueStore } from '../../../lib/kv/kv.js';
import type { Logger } from '../../../lib/logger.js';
import { ComplaintWatch } from './complaint-watch.js';
import { DeliverabilityActions } from './deliverability-actions.service.js';
import { IpWarmupService } from './ip-warmup.service.js';
import { ProviderMatcher } from './provider-matcher.js';
import { DEFAULT_PROVIDER_RULES } from './provider-rules.data.js';
import { ReactionMatcher } from './reaction-matcher.js';
import { DEFAULT_REPLY_REACTIONS } from './reply-reactions.data.js';
import { DEFAULT_WARMUP_SCHEDULE } from './warmup-schedule.data.js';

/**
 * Deliverability on the operator's own addresses: which provider a destination belongs to and
 * its limits, the reactions to receivers' replies, and IP warm-up. The mta process applies
 * them; the admin API and the CLI read and steer them.
 */
export function createShapingServices(infra: {
  knex: Knex;
  clock: Clock;
  config: Config;
  kv: KeyValueStore;
  lookup: DnsLookup;
  logger: Logger;
}) {
  const { shaping, warmup } = infra.config.mta;
  const providers = new ProviderMatcher(DEFAULT_PROVIDER_RULES, shaping.providers, shaping.default, infra.lookup);
  const actions = new DeliverabilityActions({
    ...infra,
    reactions: new ReactionMatcher([...shaping.reactions, ...DEFAULT_REPLY_REACTIONS]),
    settings: shaping,
  });
  const ipWarmup = new IpWarmupService({
    ...infra,
    schedule: { ...DEFAULT_WARMUP_SCHEDULE, ...warmup.schedule },
    bulkShare: warmup.bulkShare,
  });
  const complaints = new ComplaintWatch({ ...infra, actions, providers, settings: shaping });
  return { shaping: { enabled: shaping.enabled, providers, actions, warmup: ipWarmup, complaints } };
}

export type ShapingServices = ReturnType<typeof createShapingServices>['shaping'];
