import { createHash } from 'node:crypto';
import { RateLimitExceededError, ServiceUnavailableError } from '../../lib/errors.js';
import type { KeyValueStore } from '../../lib/kv/kv.js';

const WINDOW_SECONDS = 15 * 60;

export type ThrottleLimits = { perAccount: number; perIp: number };

/**
 * Guessing limits for login and password-reset requests: a token bucket per account and one
 * per client address, each holding its limit and refilled over 15 minutes, in the same store as
 * the request-rate limiter (Redis shares them between processes). The account key is a hash of
 * the address, so the store holds no e-mail addresses.
 */
export class AttemptThrottle {
  constructor(
    private readonly kv: KeyValueStore,
    private readonly limits: ThrottleLimits,
  ) {}

  async take(action: string, account: string, ip: string): Promise<void> {
    const accountKey = createHash('sha256').update(account.toLowerCase()).digest('hex').slice(0, 32);
    const byIp = await this.bucket(`accounts:${action}:ip:${ip}`, this.limits.perIp);
    const byAccount = await this.bucket(`accounts:${action}:account:${accountKey}`, this.limits.perAccount);
    const refused = [byIp, byAccount].filter((r) => !r.allowed);
    if (refused.length === 0) return;
    const wait = Math.max(...refused.map((r) => Math.max(1, Math.ceil(r.msUntilToken / 1000))));
    throw new RateLimitExceededError(`Too many attempts; retry in ${wait} seconds`, {
      headers: { 'retry-after': String(wait) },
    });
  }

  private async bucket(key: string, limit: number) {
    return this.kv.takeToken(key, limit, limit / WINDOW_SECONDS).catch((err: Error) => {
      // Without the shared buckets guessing would be unlimited: refuse rather than allow.
      throw new ServiceUnavailableError(`Attempt limiter unavailable (${this.kv.kind}): ${err.message}`);
    });
  }
}
