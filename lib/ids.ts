import { v7 as uuidv7, validate, version } from 'uuid';
import { pooledRandomBytes } from './crypto/random-pool.js';

/** Monotonic within the process: ids made in the same millisecond count up, as uuid's own v7 does. */
const state = { msecs: -Infinity, seq: 0 };

/**
 * Ids are time-ordered UUIDs (v7): inserts land at the end of the primary-key index so they
 * stay fast once a table outgrows memory, and ordering by id is ordering by creation time,
 * which is what list cursors rely on.
 */
export function newId(): string {
  // uuid's own v7 asks the system for 16 bytes per id; a pool is cheaper (several ids per send).
  const random = pooledRandomBytes(16);
  const now = Date.now();
  if (now > state.msecs) {
    state.msecs = now;
    state.seq = ((random[6]! & 0x7f) << 24) | (random[7]! << 16) | (random[8]! << 8) | random[9]!;
  } else {
    state.seq = (state.seq + 1) | 0;
    // The 32-bit counter wrapped: borrow the next millisecond, as uuid does.
    if (state.seq === 0) state.msecs++;
  }
  return uuidv7({ random, msecs: state.msecs, seq: state.seq });
}

/** Any UUID shape (v1..v8), lower or upper case: what path and cursor parameters accept. */
export function isUuid(value: string): boolean {
  return validate(value);
}

export function isUuidV7(value: string): boolean {
  return validate(value) && version(value) === 7;
}
