import type { Knex } from 'knex';
import type { UnitOfWork } from '../../db/unit-of-work.js';
import type { Clock } from '../../lib/clock.js';
import {
  InvalidPermissionError,
  RateLimitExceededError,
  ServiceUnavailableError,
  UnprocessableValidationError,
} from '../../lib/errors.js';
import type { KeyValueStore } from '../../lib/kv/kv.js';
import type { Team } from '../platform/teams/team.types.js';
import type { UsageEntry } from '../platform/usage/usage.types.js';
import { AI_NOT_CONFIGURED } from './ai-provider.js';
import type { AiCredits } from './ai.types.js';

/** Spec, Limits: 10 AI requests per minute per team (a bucket of 10, refilled at 10 a minute). */
export const AI_REQUESTS_PER_MINUTE = 10;

/** What the checks read and write of the usage ledger (services.usage). */
export type AiUsage = {
  total(teamId: string, category: 'ai_credits', from: Date, to: Date): Promise<number>;
  record(trx: Knex.Transaction, entries: UsageEntry[]): Promise<void>;
};

/** The calendar month (UTC) holding `at`: the period credits are counted in. */
export function creditMonth(at: Date): { from: Date; to: Date } {
  return {
    from: new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1)),
    to: new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1)),
  };
}

/**
 * The checks every AI route runs, in the spec's order: (1) AI not configured, 503; (2) AI assist
 * off for the team, 403 invalid_permission; (3) the month's credits spent, 422 validation_error;
 * (4) more than 10 AI requests a minute, 429 rate_limit_exceeded. Credits are the plan's
 * `ai_credits_monthly` less the `ai_credits` records of the usage ledger this month; a credit is
 * spent by a ledger record that commits with the request's answer, so a request that fails (on
 * the provider's side or ours) spends nothing. The bucket lives in the key-value store, so with
 * Redis every API process shares it.
 */
export class AiAccess {
  constructor(private readonly deps: { configured: boolean; clock: Clock; kv: KeyValueStore; usage: AiUsage }) {}

  /** Checks 1 and 2. */
  assertEnabled(team: Team): void {
    if (!this.deps.configured) throw new ServiceUnavailableError(AI_NOT_CONFIGURED);
    if (!team.aiAssistEnabled)
      throw new InvalidPermissionError(
        'AI assist is off for this team: turn it on with PATCH /team { "ai_assist_enabled": true }',
      );
  }

  /** The team's credits this month, before the request being answered. */
  async credits(team: Team): Promise<AiCredits> {
    const { from, to } = creditMonth(this.deps.clock.now());
    const used = await this.deps.usage.total(team.id, 'ai_credits', from, to);
    return credits(team.plan.limits.ai_credits_monthly, used);
  }

  /** Checks 3 and 4, for a request that will reach the model; answers the credits before it. */
  async admit(team: Team): Promise<AiCredits> {
    const before = await this.credits(team);
    if (before.remaining <= 0) {
      const renews = creditMonth(this.deps.clock.now()).to.toISOString().slice(0, 10);
      throw new UnprocessableValidationError(
        `This team's ${before.limit} AI credits for this month are spent; they renew on ${renews} (UTC)`,
      );
    }
    await this.takeRequest(team.id);
    return before;
  }

  /** Spends one credit in `unit` (it commits with the answer); answers the credits after it. */
  spend(unit: UnitOfWork, teamId: string, sourceId: string, before: AiCredits): AiCredits {
    const entry: UsageEntry = { teamId, category: 'ai_credits', quantity: 1, at: this.deps.clock.now(), sourceId };
    unit.write('usage:ai_credits', entry, (trx, entries) => this.deps.usage.record(trx, entries));
    return credits(before.limit, before.used + 1);
  }

  private async takeRequest(teamId: string): Promise<void> {
    const rate = AI_REQUESTS_PER_MINUTE / 60;
    const result = await this.deps.kv
      .takeToken(`ai:team:${teamId}`, AI_REQUESTS_PER_MINUTE, rate)
      .catch((err: Error) => {
        // Without the shared bucket the limit cannot be kept: refuse rather than let every process allow it.
        throw new ServiceUnavailableError(`AI rate limiter unavailable (${this.deps.kv.kind}): ${err.message}`);
      });
    if (result.allowed) return;
    throw new RateLimitExceededError(`Too many AI requests: the limit is ${AI_REQUESTS_PER_MINUTE} a minute per team`, {
      headers: { 'retry-after': String(Math.max(1, Math.ceil(result.msUntilToken / 1000))) },
    });
  }
}

function credits(limit: number, used: number): AiCredits {
  return { limit, used, remaining: Math.max(0, limit - used) };
}
