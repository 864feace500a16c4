import { createHash } from 'node:crypto';
import { isIPv6 } from 'node:net';
import type { KeyValueStore, TokenBucketResult } from '../lib/kv/kv.js';
import type { SmtpReply } from './smtp-replies.js';

export type AuthFailureLimits = { perCredential: number; perSource: number; windowSeconds: number };

/** AUTH refused before the credential is checked: the reply says why and that it passes with time. */
export class AuthAttemptRefused extends Error {
  constructor(readonly reply: SmtpReply) {
    super(reply.message);
  }
}

/**
 * The client address a limit counts: the address itself, or an IPv6 client's /64 (one host
 * commonly holds the whole /64, so per-address counts would not limit it).
 */
export function sourceOf(address: string): string {
  const bare = address.split('%')[0]!;
  if (!isIPv6(bare)) return bare;
  const split = (part: string) => (part ? part.split(':') : []);
  const [head, tail] = bare.includes('::') ? bare.split('::') : [bare, undefined];
  const width = (groups: string[]) => groups.reduce((n, group) => n + (group.includes('.') ? 2 : 1), 0);
  const headGroups = split(head!);
  const tailGroups = split(tail ?? '');
  const zeros = tail === undefined ? 0 : 8 - width(headGroups) - width(tailGroups);
  const groups = [...headGroups, ...Array<string>(zeros).fill('0'), ...tailGroups];
  return `${groups
    .slice(0, 4)
    .map((group) => parseInt(group, 16).toString(16))
    .join(':')}::/64`;
}

/**
 * Failed AUTH attempts on the submission port, counted across connections (and, with Redis,
 * processes and nodes): a token bucket per presented credential and one per client address, each
 * holding its limit and refilled over the window, in the same store as the API's limits. Only
 * failures use tokens up: each attempt takes one from both before the credential is checked (so
 * parallel connections cannot all spend the last one) and gets it back unless the credential was
 * wrong. An empty bucket refuses the attempt without checking the credential. The credential's
 * key is a hash, so the store never holds a secret.
 */
export class AuthFailureThrottle {
  constructor(
    private readonly kv: KeyValueStore,
    private readonly limits: AuthFailureLimits,
  ) {}

  /**
   * Runs `check` unless a limit is used up (then throws AuthAttemptRefused); what `check` throws
   * counts as a failure when `isFailure` says the credential was wrong.
   */
  async attempt<T>(
    credential: string,
    address: string,
    check: () => Promise<T>,
    isFailure: (err: unknown) => boolean,
  ): Promise<T> {
    const source = { key: `submission:auth-failures:source:${sourceOf(address)}`, limit: this.limits.perSource };
    const hash = createHash('sha256').update(`mailroom submission auth\0${credential}`).digest('hex').slice(0, 32);
    const presented = { key: `submission:auth-failures:credential:${hash}`, limit: this.limits.perCredential };
    const taken: Array<typeof source> = [];
    for (const bucket of [source, presented]) {
      const result = await this.take(bucket);
      if (!result.allowed) {
        await this.giveBack(taken);
        throw new AuthAttemptRefused({
          code: 454,
          message: `4.7.0 Too many failed authentication attempts; try again in ${Math.max(1, Math.ceil(result.msUntilToken / 1000))} seconds`,
        });
      }
      taken.push(bucket);
    }
    try {
      const value = await check();
      await this.giveBack(taken);
      return value;
    } catch (err) {
      if (!isFailure(err)) await this.giveBack(taken);
      throw err;
    }
  }

  private take(bucket: { key: string; limit: number }): Promise<TokenBucketResult> {
    return this.kv.takeToken(bucket.key, bucket.limit, bucket.limit / this.limits.windowSeconds).catch(() => {
      // Without the shared counts guessing would be unlimited: refuse (temporarily) rather than allow.
      throw new AuthAttemptRefused({ code: 454, message: '4.7.0 Temporary authentication failure; try again later' });
    });
  }

  /** Best effort: a token not given back only makes the limit stricter for a while. */
  private async giveBack(buckets: Array<{ key: string; limit: number }>): Promise<void> {
    await Promise.all(
      buckets.map((bucket) =>
        this.kv.returnToken(bucket.key, bucket.limit, bucket.limit / this.limits.windowSeconds).catch(() => undefined),
      ),
    );
  }
}
