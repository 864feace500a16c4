import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { Clock } from '../../../lib/clock.js';
import { isConflict, isUniqueViolation } from '../../../db/errors.js';
import type { UnitOfWork } from '../../../db/unit-of-work.js';
import {
  ConcurrentIdempotentRequestsError,
  InvalidIdempotencyKeyError,
  InvalidIdempotentRequestError,
} from '../../../lib/errors.js';
import { newId } from '../../../lib/ids.js';
import type { ProcessLease } from '../leases/process-lease.js';
import { IdempotencyRepository, type Completion, type IdempotencyRow } from './idempotency.repository.js';

/**
 * Idempotency-Key for sends: exactly one email per key, across crashes.
 * - The claim is a row with a unique (team, key) index, inserted "in_flight" and naming the
 *   claiming process's lease, so every process and node sees it.
 * - The stored answer is written in the same transaction as the change it answers for (the
 *   email and batch rows: `completeWithin` joins the request's unit of work): either both exist
 *   or neither does, so a retry after any crash replays the first answer or sends once.
 * - An in-flight claim is 409 concurrent_idempotent_requests only while its process lives; a
 *   claim left by a dead process (see ProcessLease) is taken over at once. The completion is
 *   fenced by the owner, so a claim taken over can never also complete for its first owner.
 * - Same key, different request: 409 invalid_idempotent_request. A failed request releases
 *   its key, so a corrected retry can use it. Answers are kept for 24 hours.
 */
export const REPLAY_WINDOW_MS = 24 * 60 * 60 * 1000;
/** The longest a live process may hold a claim (a request that hung): then it may be taken over. */
const LOCK_MS = 10 * 60_000;
/** The longest pause between tries of a release the database refused. */
const RELEASE_RETRY_MAX_MS = 2000;

export type StoredResponse = { status: number; body: unknown };
export type Claim = { kind: 'claimed'; id: string; owner: string } | { kind: 'replay'; response: StoredResponse };

export function validateIdempotencyKey(key: string): void {
  if (key.length < 1 || key.length > 256)
    throw new InvalidIdempotencyKeyError('Idempotency-Key must be 1 to 256 characters');
}

/** What makes two requests "the same": method, route path and the exact body bytes. */
export function requestFingerprint(method: string, path: string, rawBody: Buffer | string): string {
  return createHash('sha256').update(`${method} ${path}\n`).update(rawBody).digest('hex');
}

const inProgress = () =>
  new ConcurrentIdempotentRequestsError('Another request with this Idempotency-Key is in progress');

/** The unit-of-work writer of completions: a claim taken over meanwhile fails the whole unit. */
async function writeCompletions(trx: Knex.Transaction, completions: Completion[]): Promise<void> {
  const written = await new IdempotencyRepository(trx).complete(completions);
  if (written !== completions.length) throw inProgress();
}

export class IdempotencyService {
  private readonly repository: IdempotencyRepository;

  constructor(private readonly deps: { knex: Knex; clock: Clock; lease: ProcessLease }) {
    this.repository = new IdempotencyRepository(deps.knex);
  }

  async claim(teamId: string, key: string, fingerprint: string): Promise<Claim> {
    validateIdempotencyKey(key);
    const keyHash = createHash('sha256').update(key).digest('hex');
    const owner = await this.deps.lease.ensure();
    for (let attempt = 0; attempt < 3; attempt++) {
      const id = newId();
      const now = this.deps.clock.now();
      try {
        await this.repository.insertClaim({
          id,
          teamId,
          keyHash,
          fingerprint,
          owner,
          lockedUntil: new Date(now.getTime() + LOCK_MS),
          createdAt: now,
          expiresAt: new Date(now.getTime() + REPLAY_WINDOW_MS),
        });
        return { kind: 'claimed', id, owner };
      } catch (err) {
        // On Galera the same key inserted through another member at the same moment loses
        // certification (a deadlock error) instead of meeting the unique index: the winner's
        // row is read below like any other, or the claim is tried again.
        if (!isUniqueViolation(err) && !isConflict(err)) throw err;
      }
      const outcome = await this.resolveExisting(teamId, keyHash, fingerprint, owner, now);
      if (outcome) return outcome;
    }
    throw inProgress();
  }

  /** Looks at the row that won; undefined means "it is gone or expired, try to claim again". */
  private async resolveExisting(
    teamId: string,
    keyHash: string,
    fingerprint: string,
    owner: string,
    now: Date,
  ): Promise<Claim | undefined> {
    const row = await this.repository.find(teamId, keyHash);
    if (!row) return undefined;
    if (row.expiresAt <= now) {
      await this.repository.remove(row.id);
      return undefined;
    }
    if (row.fingerprint !== fingerprint)
      throw new InvalidIdempotentRequestError('This Idempotency-Key was already used with a different request');
    if (row.state === 'done') {
      return {
        kind: 'replay',
        response: {
          status: Number(row.responseStatus),
          body: row.responseBody === null ? null : JSON.parse(row.responseBody),
        },
      };
    }
    if (!(await this.holderIsGone(row, now))) throw inProgress();
    // The process holding the claim died (or hung past LOCK_MS): take it over, once.
    if (await this.repository.takeOver(row, owner, new Date(now.getTime() + LOCK_MS)))
      return { kind: 'claimed', id: row.id, owner };
    throw inProgress();
  }

  private async holderIsGone(row: IdempotencyRow, now: Date): Promise<boolean> {
    if (row.lockedUntil <= now) return true;
    return row.owner === null ? false : this.deps.lease.isDead(row.owner);
  }

  /** The claim's answer, stored by the transaction that commits `unit` (see the class comment). */
  completeWithin(unit: UnitOfWork, claim: Extract<Claim, { kind: 'claimed' }>, response: StoredResponse): void {
    unit.write<Completion>(
      'idempotency_completions',
      { id: claim.id, owner: claim.owner, status: response.status, body: response.body },
      writeCompletions,
    );
  }

  /**
   * Releases the claim of a request that failed. When the database cannot take the delete now
   * (the Galera member this node writes to stopped, a certification conflict), it is tried again
   * in the background while the claim would stand: left in place, every retry of the key, through
   * any node, would be answered 409 until the claim's lock ran out.
   */
  async release(claim: Extract<Claim, { kind: 'claimed' }>): Promise<void> {
    try {
      await this.repository.release(claim.id, claim.owner);
    } catch (err) {
      this.releaseLater(claim, 0);
      throw err;
    }
  }

  private releaseLater(claim: Extract<Claim, { kind: 'claimed' }>, attempt: number): void {
    if (attempt * RELEASE_RETRY_MAX_MS > LOCK_MS) return;
    const retry = () =>
      void this.repository.release(claim.id, claim.owner).catch(() => this.releaseLater(claim, attempt + 1));
    // Unreferenced: a process stopping does not wait for it (its claims die with its lease).
    setTimeout(retry, Math.min(RELEASE_RETRY_MAX_MS, 250 * 2 ** attempt)).unref();
  }

  async purgeExpired(batch = 1000): Promise<number> {
    await this.deps.lease.purgeExpired();
    return this.repository.purgeExpiredBefore(this.deps.clock.now(), batch);
  }
}
