import { createHmac } from 'node:crypto';
import type { Knex } from 'knex';
import type { Clock } from '../../../lib/clock.js';
import { newId } from '../../../lib/ids.js';
import { normalizeEmail } from '../../shared/addresses/email-address.js';
import { ConsentRecordRepository } from './consent-record.repository.js';
import { CONSENT_RETENTION_DAYS, type ConsentOrigin, type ConsentRecord } from './consent-record.types.js';

export type ConsentChange =
  | { kind: 'unsubscribed'; value: 'unsubscribed' | 'subscribed' }
  | { kind: 'topic'; topicId: string; value: 'opt_in' | 'opt_out' };

/** Work that commits with every recorded consent change (automations on svc:topic.subscribed). */
export type ConsentFollower = (
  trx: Knex,
  contact: { teamId: string; id: string; email: string },
  changes: ConsentChange[],
) => Promise<void>;

/**
 * Writes consent records in the transaction of the change they record, and keys them by an
 * HMAC of the address under the master key: after an erasure the record still answers "did
 * this address consent?" for someone who knows the address, without listing addresses.
 */
export class ConsentLog {
  private readonly followers: ConsentFollower[] = [];

  constructor(private readonly deps: { knex: Knex; clock: Clock; masterKey: string }) {}

  /**
   * Adds work that commits with every change recorded through `record` from now on (not the
   * records an import builds in bulk: an import starts no automations per row).
   */
  follow(follower: ConsentFollower): void {
    this.followers.push(follower);
  }

  addressHash(email: string): string {
    return createHmac('sha256', this.deps.masterKey)
      .update(`consent:${normalizeEmail(email)}`)
      .digest('hex');
  }

  async record(
    trx: Knex,
    contact: { teamId: string; id: string; email: string },
    changes: ConsentChange[],
    origin: ConsentOrigin,
  ): Promise<void> {
    await new ConsentRecordRepository(trx).insertMany(this.build(contact, changes, origin));
    if (changes.length > 0) for (const follower of this.followers) await follower(trx, contact, changes);
  }

  /** The records of `changes`, for a caller that writes many contacts' records at once (imports). */
  build(
    contact: { teamId: string; id: string; email: string },
    changes: ConsentChange[],
    origin: ConsentOrigin,
  ): ConsentRecord[] {
    if (changes.length === 0) return [];
    const emailHash = this.addressHash(contact.email);
    const createdAt = this.deps.clock.now();
    return changes.map((change) => ({
      id: newId(),
      teamId: contact.teamId,
      contactId: contact.id,
      emailHash,
      kind: change.kind,
      topicId: change.kind === 'topic' ? change.topicId : null,
      value: change.value,
      source: origin.source,
      ip: origin.ip ?? null,
      userAgent: origin.userAgent?.slice(0, 500) ?? null,
      createdAt,
    }));
  }

  /** Deletes records older than the three years they are kept, in batches. */
  async purgeExpired(batch = 1000): Promise<{ consent_records: number }> {
    const cutoff = new Date(this.deps.clock.now().getTime() - CONSENT_RETENTION_DAYS * 86_400_000);
    const repository = new ConsentRecordRepository(this.deps.knex);
    let total = 0;
    for (;;) {
      const removed = await repository.purgeBefore(cutoff, batch);
      total += removed;
      if (removed < batch) return { consent_records: total };
    }
  }
}
