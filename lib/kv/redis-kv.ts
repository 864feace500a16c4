import { Redis, type RedisOptions } from 'ioredis';
import type { KeyValueStore, TokenBucketResult } from './kv.js';

/**
 * Token bucket as one atomic Lua script, with Redis's own clock (TIME) so API processes on
 * different hosts with drifting clocks still share one bucket correctly. Mirrors refillBucket().
 */
const TAKE_TOKEN = `
local capacity = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local state = redis.call('HMGET', KEYS[1], 'tokens', 'updated')
local tokens = capacity
if state[1] then
  local elapsed = math.max(0, now - tonumber(state[2]))
  tokens = math.min(capacity, tonumber(state[1]) + elapsed * rate / 1000)
end
local allowed = 0
if tokens >= 1 then
  allowed = 1
  tokens = tokens - 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'updated', tostring(now))
local full_ms = math.ceil((capacity - tokens) * 1000 / rate)
redis.call('PEXPIRE', KEYS[1], full_ms + 1000)
local token_ms = 0
if allowed == 0 then token_ms = math.ceil((1 - tokens) * 1000 / rate) end
return { allowed, math.floor(tokens), full_ms, token_ms }
`;

/** One token back into the bucket (never above capacity); mirrors refundBucket(). Absent is full. */
const RETURN_TOKEN = `
local capacity = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local state = redis.call('HMGET', KEYS[1], 'tokens', 'updated')
if not state[1] then return 0 end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local elapsed = math.max(0, now - tonumber(state[2]))
local tokens = math.min(capacity, tonumber(state[1]) + elapsed * rate / 1000 + 1)
local full_ms = math.ceil((capacity - tokens) * 1000 / rate)
if full_ms <= 0 then
  redis.call('DEL', KEYS[1])
else
  redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'updated', tostring(now))
  redis.call('PEXPIRE', KEYS[1], full_ms + 1000)
end
return 1
`;

/** Adds ARGV[1] unless the counter would pass ARGV[2]; the first increment sets the expiry. */
const INCREMENT_UP_TO = `
local by = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if current + by > limit then return -1 end
local value = redis.call('INCRBY', KEYS[1], by)
if value == by then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
return value
`;

/** A sorted set of holders scored by when their slot expires: expired ones are dropped first. */
const ACQUIRE_SLOT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
return 1
`;

/** A redis:// URL, or Redis Sentinel: the sentinels to ask and the group whose primary to use. */
export type RedisTarget =
  | string
  | {
      sentinels: Array<{ host: string; port: number }>;
      name: string;
      password?: string;
      sentinelPassword?: string;
      db: number;
    };

const CONNECTION: RedisOptions = {
  maxRetriesPerRequest: 1,
  connectTimeout: 2000,
  // Keep reconnecting in the background, at most every 2 s.
  retryStrategy: (times) => Math.min(times * 200, 2000),
  // A primary demoted by a failover answers writes with READONLY until the client has moved:
  // reconnect (through the sentinels, to the new primary) and send the command again.
  reconnectOnError: (err) => (err.message.startsWith('READONLY') ? 2 : false),
};

function connectRedis(target: RedisTarget): Redis {
  if (typeof target === 'string') return new Redis(target, CONNECTION);
  return new Redis({
    ...CONNECTION,
    sentinels: target.sentinels,
    name: target.name,
    db: target.db,
    ...(target.password ? { password: target.password } : {}),
    ...(target.sentinelPassword ? { sentinelPassword: target.sentinelPassword } : {}),
    // Ask the sentinels again at once after a failover instead of after the back-off.
    sentinelRetryStrategy: (times) => Math.min(times * 100, 1000),
    // The sentinels have a quorum on who the primary is; a node's own view may lag a moment.
    failoverDetector: true,
  });
}

export class RedisKeyValueStore implements KeyValueStore {
  readonly kind = 'redis' as const;
  private readonly redis: Redis;

  constructor(
    target: RedisTarget,
    private readonly prefix: string,
  ) {
    this.redis = connectRedis(target);
    this.redis.defineCommand('mailroomTakeToken', { numberOfKeys: 1, lua: TAKE_TOKEN });
    this.redis.defineCommand('mailroomReturnToken', { numberOfKeys: 1, lua: RETURN_TOKEN });
    this.redis.defineCommand('mailroomIncrementUpTo', { numberOfKeys: 1, lua: INCREMENT_UP_TO });
    this.redis.defineCommand('mailroomAcquireSlot', { numberOfKeys: 1, lua: ACQUIRE_SLOT });
    // Connection errors surface on the commands that need Redis (answered 503); keep the
    // process alive meanwhile instead of crashing on an unhandled 'error' event.
    this.redis.on('error', () => {});
  }

  /**
   * While Redis is known to be down, fail at once (the API answers 503) rather than queue the
   * command behind the reconnect back-off. Commands during the first connect still wait for it.
   */
  private assertReachable(): void {
    const status = this.redis.status;
    if (status === 'reconnecting' || status === 'close' || status === 'end')
      throw new Error(`Redis is unreachable (${status})`);
  }

  /** The server's version (INFO server), for the operator console's system page. */
  async serverVersion(): Promise<string | null> {
    this.assertReachable();
    const info = await this.redis.info('server');
    return /^redis_version:(\S+)/m.exec(info)?.[1] ?? null;
  }

  async takeToken(key: string, capacity: number, ratePerSecond: number): Promise<TokenBucketResult> {
    this.assertReachable();
    const command = (this.redis as unknown as Record<string, (...args: unknown[]) => Promise<number[]>>)
      .mailroomTakeToken!;
    const [allowed, remaining, msUntilFull, msUntilToken] = await command.call(
      this.redis,
      this.prefix + key,
      capacity,
      ratePerSecond,
    );
    return { allowed: allowed === 1, remaining: remaining!, msUntilFull: msUntilFull!, msUntilToken: msUntilToken! };
  }

  async returnToken(key: string, capacity: number, ratePerSecond: number): Promise<void> {
    this.assertReachable();
    const command = (this.redis as unknown as Record<string, (...args: unknown[]) => Promise<number>>)
      .mailroomReturnToken!;
    await command.call(this.redis, this.prefix + key, capacity, ratePerSecond);
  }

  async setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean> {
    this.assertReachable();
    return (await this.redis.set(this.prefix + key, value, 'PX', ttlMs, 'NX')) === 'OK';
  }

  async get(key: string): Promise<string | null> {
    this.assertReachable();
    return this.redis.get(this.prefix + key);
  }

  async incrementUpTo(key: string, by: number, limit: number, ttlMs: number): Promise<number | null> {
    this.assertReachable();
    const value = await this.script<number>('mailroomIncrementUpTo', key, by, limit, ttlMs);
    return value < 0 ? null : value;
  }

  async counter(key: string): Promise<number> {
    this.assertReachable();
    return Number((await this.redis.get(this.prefix + key)) ?? 0);
  }

  async acquireSlot(key: string, holder: string, limit: number, ttlMs: number): Promise<boolean> {
    this.assertReachable();
    return (await this.script<number>('mailroomAcquireSlot', key, holder, limit, ttlMs)) === 1;
  }

  async releaseSlot(key: string, holder: string): Promise<void> {
    this.assertReachable();
    await this.redis.zrem(this.prefix + key, holder);
  }

  private script<T>(name: string, key: string, ...args: Array<string | number>): Promise<T> {
    const command = (this.redis as unknown as Record<string, (...a: unknown[]) => Promise<T>>)[name]!;
    return command.call(this.redis, this.prefix + key, ...args);
  }

  async delete(key: string): Promise<void> {
    this.assertReachable();
    await this.redis.del(this.prefix + key);
  }

  async ping(): Promise<void> {
    this.assertReachable();
    await this.redis.ping();
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
