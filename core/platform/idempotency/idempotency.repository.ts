import type { Knex } from 'knex';
import { deleteInBatches, readTimestamp } from '../../../db/dialect.js';

export type IdempotencyRow = {
  id: string;
  fingerprint: string;
  state: 'in_flight' | 'done';
  owner: string | null;
  lockedUntil: Date;
  expiresAt: Date;
  responseStatus: number | null;
  responseBody: string | null;
};

type Raw = {
  id: string;
  fingerprint: string;
  state: string;
  owner: string | null;
  locked_until: unknown;
  expires_at: unknown;
  response_status: number | null;
  response_body: string | null;
};

const toRow = (raw: Raw): IdempotencyRow => ({
  id: raw.id,
  fingerprint: raw.fingerprint,
  state: raw.state as IdempotencyRow['state'],
  owner: raw.owner,
  lockedUntil: readTimestamp(raw.locked_until),
  expiresAt: readTimestamp(raw.expires_at),
  responseStatus: raw.response_status === null ? null : Number(raw.response_status),
  responseBody: raw.response_body,
});

/** The stored answer of a claim, written in the transaction of the change it answers for. */
export type Completion = { id: string; owner: string; status: number; body: unknown };

export class IdempotencyRepository {
  constructor(private readonly knex: Knex) {}

  /** Throws the driver's unique violation when the key is taken. */
  async insertClaim(claim: {
    id: string;
    teamId: string;
    keyHash: string;
    fingerprint: string;
    owner: string;
    lockedUntil: Date;
    createdAt: Date;
    expiresAt: Date;
  }): Promise<void> {
    await this.knex('idempotency_keys').insert({
      id: claim.id,
      team_id: claim.teamId,
      key_hash: claim.keyHash,
      fingerprint: claim.fingerprint,
      state: 'in_flight',
      owner: claim.owner,
      locked_until: claim.lockedUntil,
      created_at: claim.createdAt,
      expires_at: claim.expiresAt,
    });
  }

  async find(teamId: string, keyHash: string): Promise<IdempotencyRow | undefined> {
    const raw = (await this.knex('idempotency_keys').where({ team_id: teamId, key_hash: keyHash }).first()) as
      Raw | undefined;
    return raw ? toRow(raw) : undefined;
  }

  async remove(id: string): Promise<void> {
    await this.knex('idempotency_keys').where({ id }).delete();
  }

  /** Compare-and-set: the in-flight claim moves to a new owner only if it is still as it was read. */
  async takeOver(row: IdempotencyRow, owner: string, lockedUntil: Date): Promise<boolean> {
    const query = this.knex('idempotency_keys').where({ id: row.id, state: 'in_flight' });
    if (row.owner === null) query.whereNull('owner');
    else query.where({ owner: row.owner });
    return (await query.update({ owner, locked_until: lockedUntil })) === 1;
  }

  /**
   * Marks claims done with their answers, each only while its owner still holds it. Returns how
   * many were written: fewer than given means a claim was taken over meanwhile.
   */
  async complete(completions: Completion[]): Promise<number> {
    let written = 0;
    for (const c of completions) {
      written += await this.knex('idempotency_keys')
        .where({ id: c.id, state: 'in_flight', owner: c.owner })
        .update({ state: 'done', response_status: c.status, response_body: JSON.stringify(c.body) });
    }
    return written;
  }

  async release(id: string, owner: string): Promise<void> {
    await this.knex('idempotency_keys').where({ id, state: 'in_flight', owner }).delete();
  }

  async purgeExpiredBefore(now: Date, batch: number): Promise<number> {
    return deleteInBatches(
      this.knex,
      'idempotency_keys',
      () => this.knex('idempotency_keys').select('id').where('expires_at', '<', now),
      batch,
    );
  }
}
