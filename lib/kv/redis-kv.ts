import { Redis, type RedisOptions } from 'ioredis';
import { ServiceUnavailableError } from '../errors.js';
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

/**
 * Redis cannot serve the command now: unreachable, reconnecting, or in the middle of a failover.
 * A ServiceUnavailableError, so every caller answers it the same way (the API 503, SMTP 451):
 * nothing was done and the same command succeeds once a primary is reachable again.
 */
export class RedisUnavailableError extends ServiceUnavailableError {
  constructor(message: string, cause?: unknown) {
    super(message);
    if (cause !== undefined) this.cause = cause;
  }
}

/** Replies of a server that cannot serve now (a demoted primary, a replica loading its data...). */
const UNAVAILABLE_REPLY = /^(READONLY|LOADING|MASTERDOWN|NOREPLICAS|TRYAGAIN|BUSY|CLUSTERDOWN)\b/;

/**
 * A failed command's error as the store throws it. The client's own errors (connection closed,
 * retries exhausted, command aborted by a reconnect) and the replies above mean Redis is
 * unavailable; any other reply (a wrong argument, a script error) is a bug and stays as it is.
 */
function commandError(err: unknown): unknown {
  if (!(err instanceof Error) || err instanceof RedisUnavailableError) return err;
  if (err.name === 'ReplyError' && !UNAVAILABLE_REPLY.test(err.message)) return err;
  return new RedisUnavailableError(`Redis is unavailable: ${err.message}`, err);
}

/** How long after an unexpected end the store connects again. */
const RESTART_AFTER_END_MS = 250;

export class RedisKeyValueStore implements KeyValueStore {
  readonly kind = 'redis' as const;
  private readonly redis: Redis;
  private closing = false;

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
    // ioredis ends a client for good (status 'end', no more reconnects) when a connect fails in
    // its connector. With sentinels that happens in an unplanned failover: the failover detector
    // left subscribed by the lost connection sees +switch-master while the reconnect is still
    // asking the sentinels, and disconnects the connector under it. Only close() ends the store.
    this.redis.on('end', () => {
      if (this.closing) return;
      setTimeout(() => {
        if (!this.closing && this.redis.status === 'end') this.redis.connect().catch(() => undefined);
      }, RESTART_AFTER_END_MS).unref();
    });
  }

  /**
   * One command. While Redis is known to be down, fail at once (the API answers 503) rather than
   * queue the command behind the reconnect back-off; commands during the first connect still wait
   * for it. Whatever keeps Redis from serving it becomes a RedisUnavailableError (see commandError).
   */
  private async run<T>(command: (redis: Redis) => Promise<T>): Promise<T> {
    const status = this.redis.status;
    if (status === 'reconnecting' || status === 'close' || status === 'end')
      throw new RedisUnavailableError(`Redis is unreachable (${status})`);
    try {
      return await command(this.redis);
    } catch (err) {
      throw commandError(err);
    }
  }

  private script<T>(name: string, key: string, ...args: Array<string | number>): Promise<T> {
    return this.run((redis) => {
      const command = (redis as unknown as Record<string, (...a: unknown[]) => Promise<T>>)[name]!;
      return command.call(redis, this.prefix + key, ...args);
    });
  }

  /** The server's version (INFO server), for the operator console's system page. */
  async serverVersion(): Promise<string | null> {
    const info = await this.run((redis) => redis.info('server'));
    return /^redis_version:(\S+)/m.exec(info)?.[1] ?? null;
  }

  async takeToken(key: string, capacity: number, ratePerSecond: number): Promise<TokenBucketResult> {
    const [allowed, remaining, msUntilFull, msUntilToken] = await this.script<number[]>(
      'mailroomTakeToken',
      key,
      capacity,
      ratePerSecond,
    );
    return { allowed: allowed === 1, remaining: remaining!, msUntilFull: msUntilFull!, msUntilToken: msUntilToken! };
  }

  async returnToken(key: string, capacity: number, ratePerSecond: number): Promise<void> {
    await this.script<number>('mailroomReturnToken', key, capacity, ratePerSecond);
  }

  async setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean> {
    return (await this.run((redis) => redis.set(this.prefix + key, value, 'PX', ttlMs, 'NX'))) === 'OK';
  }

  async get(key: string): Promise<string | null> {
    return this.run((redis) => redis.get(this.prefix + key));
  }

  async incrementUpTo(key: string, by: number, limit: number, ttlMs: number): Promise<number | null> {
    const value = await this.script<number>('mailroomIncrementUpTo', key, by, limit, ttlMs);
    return value < 0 ? null : value;
  }

  async counter(key: string): Promise<number> {
    return Number((await this.run((redis) => redis.get(this.prefix + key))) ?? 0);
  }

  async acquireSlot(key: string, holder: string, limit: number, ttlMs: number): Promise<boolean> {
    return (await this.script<number>('mailroomAcquireSlot', key, holder, limit, ttlMs)) === 1;
  }

  async releaseSlot(key: string, holder: string): Promise<void> {
    await this.run((redis) => redis.zrem(this.prefix + key, holder));
  }

  async delete(key: string): Promise<void> {
    await this.run((redis) => redis.del(this.prefix + key));
  }

  async ping(): Promise<void> {
    await this.run((redis) => redis.ping());
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.redis.quit().catch(() => undefined);
    // QUIT ends the connection to the primary only: with sentinels, the failover detector's
    // subscriptions to them stay open (and reconnect) until the connector is disconnected too.
    this.redis.disconnect();
  }
}
