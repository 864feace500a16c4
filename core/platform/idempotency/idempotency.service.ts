import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { Clock } from '../../../lib/clock.js';
import { deleteInBatches, isUniqueViolation, readTimestamp } from '../../../db/dialect.js';
import { ConcurrentIdempotentRequestsError, InvalidIdempotencyKeyError, InvalidIdempotentRequestError } from '../../../lib/errors.js';
import { newId } from '../../../lib/ids.js';

/**
 * Idempotency-Key for sends. The claim is a row with a unique (team, key) index: the first
 * request inserts it "in_flight" and every other process sees the row, so the rule holds across
 * processes and nodes and a stored response survives restarts for its 24 hours.
 * - same key, same request, finished: the original response is replayed;
 * - same key while the first is in flight: 409 concurrent_idempotent_requests;
 * - same key, different request: 409 invalid_idempotent_request;
 * - a request that failed releases its key, so a corrected retry can use it.
 * An in-flight claim left by a crashed process expires after LOCK_MS and can be taken over.
 */
export const REPLAY_WINDOW_MS = 24 * 60 * 60 * 1000;
const LOCK_MS = 60_000;

export type StoredResponse = { status: number; body: unknown };
export type Claim = { kind: 'claimed'; id: string } | { kind: 'replay'; response: StoredResponse };

type Row = { id: string; fingerprint: string; state: string; locked_until: unknown; expires_at: unknown; response_status: number | null; response_body: string | null };

export function validateIdempotencyKey(key: string): void {
  if (key.length < 1 || key.length > 256) throw new InvalidIdempotencyKeyError('Idempotency-Key must be 1 to 256 characters');
}

/** What makes two requests "the same": method, route path and the exact body bytes. */
export function requestFingerprint(method: string, path: string, rawBody: Buffer | string): string {
  return createHash('sha256').update(`${method} ${path}\n`).update(rawBody).digest('hex');
}

export class IdempotencyService {
  constructor(private readonly deps: { knex: Knex; clock: Clock }) {}

  async claim(teamId: string, key: string, fingerprint: string): Promise<Claim> {
    validateIdempotencyKey(key);
    const keyHash = createHash('sha256').update(key).digest('hex');
    for (let attempt = 0; attempt < 3; attempt++) {
      const id = newId();
      const now = this.deps.clock.now();
      try {
        await this.deps.knex('idempotency_keys').insert({
          id,
          team_id: teamId,
          key_hash: keyHash,
          fingerprint,
          state: 'in_flight',
          locked_until: new Date(now.getTime() + LOCK_MS),
          created_at: now,
          expires_at: new Date(now.getTime() + REPLAY_WINDOW_MS),
        });
        return { kind: 'claimed', id };
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
      }
      const outcome = await this.resolveExisting(teamId, keyHash, fingerprint, now);
      if (outcome) return outcome;
    }
    throw new ConcurrentIdempotentRequestsError('Another request with this Idempotency-Key is in progress');
  }

  /** Looks at the row that won; undefined means "it is gone or stale, try to claim again". */
  private async resolveExisting(teamId: string, keyHash: string, fingerprint: string, now: Date): Promise<Claim | undefined> {
    const row = (await this.deps.knex('idempotency_keys').where({ team_id: teamId, key_hash: keyHash }).first()) as Row | undefined;
    if (!row) return undefined;
    if (readTimestamp(row.expires_at) <= now) {
      await this.deps.knex('idempotency_keys').where({ id: row.id }).delete();
      return undefined;
    }
    if (row.fingerprint !== fingerprint) {
      throw new InvalidIdempotentRequestError('This Idempotency-Key was already used with a different request');
    }
    if (row.state === 'done') {
      return { kind: 'replay', response: { status: Number(row.response_status), body: row.response_body === null ? null : JSON.parse(row.response_body) } };
    }
    if (readTimestamp(row.locked_until) > now) {
      throw new ConcurrentIdempotentRequestsError('Another request with this Idempotency-Key is in progress');
    }
    // The process holding the claim died: take it over, once, by compare-and-set on the lock.
    const taken = await this.deps
      .knex('idempotency_keys')
      .where({ id: row.id, state: 'in_flight' })
      .andWhere('locked_until', '<=', now)
      .update({ locked_until: new Date(now.getTime() + LOCK_MS) });
    if (taken === 1) return { kind: 'claimed', id: row.id };
    throw new ConcurrentIdempotentRequestsError('Another request with this Idempotency-Key is in progress');
  }

  async complete(id: string, response: StoredResponse): Promise<void> {
    await this.deps
      .knex('idempotency_keys')
      .where({ id })
      .update({ state: 'done', response_status: response.status, response_body: JSON.stringify(response.body) });
  }

  async release(id: string): Promise<void> {
    await this.deps.knex('idempotency_keys').where({ id, state: 'in_flight' }).delete();
  }

  async purgeExpired(batch = 1000): Promise<number> {
    const now = this.deps.clock.now();
    return deleteInBatches(this.deps.knex, 'idempotency_keys', () => this.deps.knex('idempotency_keys').select('id').where('expires_at', '<', now), batch);
  }
}
