import { z } from 'zod';
import type { WarmupStatus } from '../../core/sending/shaping/ip-warmup.service.js';
import { DEFAULT_PROVIDER_RULES } from '../../core/sending/shaping/provider-rules.data.js';
import { DEFAULT_REPLY_REACTIONS } from '../../core/sending/shaping/reply-reactions.data.js';
import type {
  DeliverabilityAction,
  ProviderLimits,
  ProviderRule,
  ReactionRule,
} from '../../core/sending/shaping/shaping.types.js';

const instant = z.string().describe('ISO 8601 timestamp (UTC)');
const count = z.number().int().nonnegative();
const origin = z.enum(['built_in', 'configuration']).describe('built_in: the data file; configuration: mta.shaping');

const limitsFields = {
  max_connections: z.number().nullable(),
  messages_per_connection: z.number().nullable(),
  messages_per_hour: z.number().nullable(),
  pacing_ms: z.number().nullable(),
  tls_required: z.boolean(),
};

export const providerRuleShape = z.object({
  object: z.literal('provider_rule'),
  name: z.string(),
  mx: z.array(z.string()).describe('MX host name suffixes that identify the provider'),
  ...limitsFields,
  source: z.string().describe("where the numbers come from (the provider's guidance, or practice)"),
  origin,
});

export const reactionRuleShape = z.object({
  object: z.literal('reaction_rule'),
  id: z.string(),
  match: z.object({
    providers: z.array(z.string()).nullable().describe('null: every provider'),
    codes: z.array(z.number()).nullable(),
    enhanced: z.array(z.string()).nullable(),
    text: z.string().nullable().describe('case-insensitive regular expression'),
  }),
  action: z.enum(['slow', 'pause']),
  pause_seconds: z.number().nullable(),
  source: z.string(),
  example: z.string(),
  origin,
});

export const providersShape = z.object({
  object: z.literal('deliverability_providers'),
  enabled: z.boolean().describe('mta.shaping.enabled'),
  default: z.object(limitsFields).describe('limits for destinations no rule matches (each domain counts alone)'),
  providers: z.array(providerRuleShape),
  reactions: z.array(reactionRuleShape),
});

const limits = (rule: ProviderLimits) => ({
  max_connections: rule.maxConnections ?? null,
  messages_per_connection: rule.messagesPerConnection ?? null,
  messages_per_hour: rule.messagesPerHour ?? null,
  pacing_ms: rule.pacingMs ?? null,
  tls_required: rule.tlsRequired ?? false,
});

// The matchers keep the built-in rule objects as they are: identity says where a rule comes from.
export const serializeProviderRule = (rule: ProviderRule) => ({
  object: 'provider_rule' as const,
  name: rule.name,
  mx: rule.mx,
  ...limits(rule),
  source: rule.source,
  origin: DEFAULT_PROVIDER_RULES.includes(rule) ? ('built_in' as const) : ('configuration' as const),
});

export const serializeReactionRule = (rule: ReactionRule) => ({
  object: 'reaction_rule' as const,
  id: rule.id,
  match: {
    providers: rule.providers ?? null,
    codes: rule.codes ?? null,
    enhanced: rule.enhanced ?? null,
    text: rule.text ?? null,
  },
  action: rule.action,
  pause_seconds: rule.action === 'pause' ? (rule.pauseSeconds ?? null) : null,
  source: rule.source,
  example: rule.example,
  origin: DEFAULT_REPLY_REACTIONS.includes(rule) ? ('built_in' as const) : ('configuration' as const),
});

export const serializeDefaultLimits = limits;

export const actionShape = z.object({
  object: z.literal('deliverability_action'),
  id: z.string(),
  kind: z.enum(['slow', 'pause', 'suspend_marketing']),
  provider: z.string().describe('a provider rule name, or domain:<name> for a destination no rule names'),
  egress_ip: z.string().nullable(),
  team_id: z.string().nullable(),
  factor: z.number().nullable().describe('slow: the share of the limits it started at'),
  factor_now: z.number().nullable().describe('slow and active: the share in force now (it doubles back)'),
  rule_id: z.string().nullable(),
  reason: z.string().describe("the receiver's reply that drew it"),
  started_at: instant,
  ends_at: instant,
  active: z.boolean(),
});

export function serializeAction(action: DeliverabilityAction, now: Date, factorNow: number | null) {
  // A slow that follows a pause starts when the pause ends: it is already in force (scheduled).
  const active = action.endsAt > now;
  return {
    object: 'deliverability_action' as const,
    id: action.id,
    kind: action.kind,
    provider: action.provider,
    egress_ip: action.egressIp,
    team_id: action.teamId,
    factor: action.factor,
    factor_now: active ? factorNow : null,
    rule_id: action.ruleId,
    reason: action.reason,
    started_at: action.startedAt.toISOString(),
    ends_at: action.endsAt.toISOString(),
    active,
  };
}

export const warmupShape = z.object({
  object: z.literal('ip_warmup'),
  address: z.string(),
  started_on: z.string().describe('YYYY-MM-DD (UTC): day 1'),
  day: z.number().int(),
  days: count.describe('days in the schedule; after the last one the address is warm'),
  complete: z.boolean(),
  sent_today: count,
  providers: z.array(
    z.object({
      provider: z.string().describe('a provider rule name; default: every other destination'),
      allowance: count.nullable().describe("today's allowance; null: no limit"),
      sent: count,
      answers: z.record(z.string(), count).describe('replies today by class: 2xx, 4xx, 5xx, connection'),
    }),
  ),
});

export const serializeWarmup = (status: WarmupStatus) => ({
  object: 'ip_warmup' as const,
  address: status.address,
  started_on: status.startedOn,
  day: status.day,
  days: status.days,
  complete: status.complete,
  sent_today: status.sentToday,
  providers: status.providers,
});
