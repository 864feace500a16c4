import type { KeyValueStore } from './kv.js';
import { MemoryKeyValueStore } from './memory-kv.js';
import { RedisKeyValueStore, type RedisTarget } from './redis-kv.js';

export type RedisSettings = {
  url?: string;
  keyPrefix: string;
  sentinels?: string[];
  name?: string;
  password?: string;
  sentinelPassword?: string;
  db?: number;
};

/** Where the configuration says Redis is: sentinels (they name the primary), a URL, or nowhere. */
export function redisTargetOf(redis: RedisSettings): RedisTarget | undefined {
  if (redis.sentinels && redis.sentinels.length > 0)
    return {
      sentinels: redis.sentinels.map((entry) => {
        const at = entry.lastIndexOf(':');
        return { host: entry.slice(0, at), port: Number(entry.slice(at + 1)) };
      }),
      name: redis.name ?? 'mailroom',
      ...(redis.password ? { password: redis.password } : {}),
      ...(redis.sentinelPassword ? { sentinelPassword: redis.sentinelPassword } : {}),
      db: redis.db ?? 0,
    };
  return redis.url ? redis.url : undefined;
}

/** Redis configured (a URL or sentinels): what several processes and nodes need to share limits. */
export const hasSharedRedis = (redis: RedisSettings): boolean => redisTargetOf(redis) !== undefined;

export function createKeyValueStore(redis: RedisSettings): KeyValueStore {
  const target = redisTargetOf(redis);
  return target ? new RedisKeyValueStore(target, redis.keyPrefix) : new MemoryKeyValueStore();
}
