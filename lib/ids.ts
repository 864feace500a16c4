import { randomFillSync } from 'node:crypto';
import { v7 as uuidv7, validate, version } from 'uuid';

/**
 * Random bytes for ids, drawn from a pool refilled 4 KiB at a time: uuid's own v7 asks the
 * system for 16 bytes per id, a measurable share of a send's CPU (several ids per request).
 */
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;
function random16(): Uint8Array {
  if (poolOffset + 16 > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const bytes = pool.subarray(poolOffset, poolOffset + 16);
  poolOffset += 16;
  return bytes;
}

/** Monotonic within the process: ids made in the same millisecond count up, as uuid's own v7 does. */
const state = { msecs: -Infinity, seq: 0 };

/**
 * Ids are time-ordered UUIDs (v7): inserts land at the end of the primary-key index so they
 * stay fast once a table outgrows memory, and ordering by id is ordering by creation time,
 * which is what list cursors rely on.
 */
export function newId(): string {
  const random = random16();
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
