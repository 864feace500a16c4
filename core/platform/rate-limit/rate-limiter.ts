import { ServiceUnavailableError } from '../../../lib/errors.js';
import type { KeyValueStore } from '../../../lib/kv/kv.js';

export type RateDecision = {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Whole seconds until the bucket is full again (ratelimit-reset). */
  resetSeconds: number;
  /** Whole seconds to wait before retrying, never 0 (retry-after on a 429). */
  retryAfterSeconds: number;
};

/**
 * The request-rate rule: a token bucket of `perSecond` tokens refilled at `perSecond` per second,
 * per team and shared by all its keys (and per client address for requests with no team yet).
 * The bucket lives in the KeyValueStore, so with Redis it is shared by every API process.
 */
export class RateLimiter {
  constructor(
    private readonly kv: KeyValueStore,
    private readonly perSecond: number,
  ) {}

  /** A team's bucket, an operator's on the admin API (they belong to no team), or a client address's. */
  async take(subject: { teamId: string } | { operatorId: string } | { ip: string }): Promise<RateDecision> {
    const key =
      'teamId' in subject
        ? `rate:team:${subject.teamId}`
        : 'operatorId' in subject
          ? `rate:operator:${subject.operatorId}`
          : `rate:ip:${subject.ip}`;
    const result = await this.kv.takeToken(key, this.perSecond, this.perSecond).catch((err: Error) => {
      // Without the shared bucket the limit cannot be enforced: refuse with 503 rather than let
      // every process allow the full rate on its own.
      throw new ServiceUnavailableError(`Rate limiter unavailable (${this.kv.kind}): ${err.message}`);
    });
    return {
      allowed: result.allowed,
      limit: this.perSecond,
      remaining: result.remaining,
      resetSeconds: Math.ceil(result.msUntilFull / 1000),
      retryAfterSeconds: Math.max(1, Math.ceil(result.msUntilToken / 1000)),
    };
  }
}
