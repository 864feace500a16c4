import { randomFillSync } from 'node:crypto';

/**
 * Cryptographically random bytes drawn from a pool refilled 4 KiB at a time, for values made
 * several times per request (ids, MIME boundaries): one system call per 4 KiB instead of one
 * per value is a measurable share of a send's CPU. Not for secrets (tokens, keys): those take
 * their bytes from crypto.randomBytes directly.
 */
const pool = Buffer.alloc(4096);
let offset = pool.length;

/** `size` random bytes (at most 256); the view is valid until the next call. */
export function pooledRandomBytes(size: number): Uint8Array {
  if (size > 256) throw new RangeError('pooledRandomBytes is for small values');
  if (offset + size > pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const bytes = pool.subarray(offset, offset + size);
  offset += size;
  return bytes;
}
