import type { Knex } from 'knex';
import { SegmentSpool, type SpoolRef } from '../lib/spool/segment-spool.js';
import { SpoolCopies } from './spool-copies.js';

/**
 * The spool of a node among several (spool.copyToDatabase): every record is appended to this
 * node's segment as on one node, then copied into the database before the append returns, so
 * what the API acknowledged is readable by every node (and, on Galera, on every member). A read
 * tries this node's segments first, then the copy: another node's MTA sends what this node's API
 * accepted, and a node that is gone for good leaves nothing behind.
 */
export class CopiedSpool extends SegmentSpool {
  private readonly copies: SpoolCopies;

  constructor(dir: string, knex: Knex, maxSegmentBytes?: number) {
    super(dir, maxSegmentBytes);
    this.copies = new SpoolCopies(knex);
  }

  override async append(data: Buffer): Promise<SpoolRef> {
    const ref = await super.append(data);
    await this.copies.put(ref, data);
    return ref;
  }

  override async read(ref: SpoolRef): Promise<Buffer | null> {
    return (await super.read(ref)) ?? this.copies.read(ref);
  }

  override async sweep(
    isReferenced: (segment: string) => Promise<boolean>,
    minAgeMs: number,
    now = Date.now(),
  ): Promise<string[]> {
    const removed = await super.sweep(isReferenced, minAgeMs, now);
    await this.copies.sweep(isReferenced, minAgeMs, now);
    return removed;
  }
}
