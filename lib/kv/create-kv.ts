import type { KeyValueStore } from './kv.js';
import { MemoryKeyValueStore } from './memory-kv.js';
import { RedisKeyValueStore } from './redis-kv.js';

export function createKeyValueStore(redis: { url?: string; keyPrefix: string }): KeyValueStore {
  return redis.url ? new RedisKeyValueStore(redis.url, redis.keyPrefix) : new MemoryKeyValueStore();
}
