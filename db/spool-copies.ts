import type { Knex } from 'knex';
import type { SpoolRef } from '../lib/spool/segment-spool.js';
import { readTimestamp } from './dialect.js';

/**
 * Bytes travel in the statement's text as hex (twice their size): parts of 1 MiB, and INSERTs of
 * at most 4 MiB of parts, stay well within MariaDB's default 16 MiB max_allowed_packet.
 */
const PART_BYTES = 1024 * 1024;
const INSERT_BYTES = 4 * 1024 * 1024;
/** The records copied by one commit add up to at most this (always at least one record). */
const BATCH_BYTES = 8 * 1024 * 1024;

type Pending = { ref: SpoolRef; data: Buffer; settle: (err?: unknown) => void };

/**
 * The spool records copied into the database (table spool_copies). Copies made at the same time
 * share one INSERT and one commit, as the spool's appends share one fsync: while one batch
 * commits, the next gathers.
 */
export class SpoolCopies {
  private pending: Pending[] = [];
  private flushing = false;

  constructor(
    private readonly knex: Knex,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Resolves once the copy is committed. */
  put(ref: SpoolRef, data: Buffer): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ ref, data, settle: (err) => (err ? reject(err) : resolve()) });
      if (!this.flushing) void this.flush();
    });
  }

  /** The record, or null when it was never copied or has been swept. */
  async read(ref: SpoolRef): Promise<Buffer | null> {
    const rows = (await this.knex('spool_copies')
      .select('bytes')
      .where({ segment: ref.segment, offset: ref.offset })
      .orderBy('part')) as Array<{ bytes: Buffer }>;
    if (rows.length === 0) return null;
    const record = Buffer.concat(rows.map((row) => row.bytes));
    return record.length === ref.length ? record : null;
  }

  /**
   * Deletes the copies of segments no row refers to any more, among those copied at least
   * `minAgeMs` ago (a record being accepted is copied before its row commits).
   */
  async sweep(isReferenced: (segment: string) => Promise<boolean>, minAgeMs: number, nowMs: number): Promise<number> {
    const rows = (await this.knex('spool_copies')
      .select('segment')
      .max({ newest: 'created_at' })
      .groupBy('segment')) as Array<{ segment: string; newest: unknown }>;
    let removed = 0;
    for (const { segment, newest } of rows) {
      if (nowMs - readTimestamp(newest).getTime() < minAgeMs) continue;
      if (await isReferenced(segment)) continue;
      removed += await this.knex('spool_copies').where({ segment }).delete();
    }
    return removed;
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.pending.length > 0) {
        const batch = takeBatch(this.pending);
        try {
          const rows = batch.flatMap((entry) => rowsOf(entry, this.now()));
          await this.knex.transaction(async (trx) => {
            for (const chunk of chunksOf(rows)) await trx('spool_copies').insert(chunk);
          });
          for (const entry of batch) entry.settle();
        } catch (err) {
          for (const entry of batch) entry.settle(err);
        }
      }
    } finally {
      this.flushing = false;
    }
  }
}

/** The first pending copies up to BATCH_BYTES (always at least one), removed from `pending`. */
function takeBatch(pending: Pending[]): Pending[] {
  let bytes = 0;
  let count = 0;
  while (count < pending.length && (count === 0 || bytes + pending[count]!.data.length <= BATCH_BYTES)) {
    bytes += pending[count]!.data.length;
    count++;
  }
  return pending.splice(0, count);
}

type CopyRow = { segment: string; offset: number; part: number; length: number; bytes: Buffer; created_at: Date };

/** Rows in INSERTs of at most INSERT_BYTES of parts (a row is at most PART_BYTES). */
function chunksOf(rows: CopyRow[]): CopyRow[][] {
  const chunks: CopyRow[][] = [];
  let bytes = 0;
  for (const row of rows) {
    if (chunks.length === 0 || bytes + row.bytes.length > INSERT_BYTES) {
      chunks.push([]);
      bytes = 0;
    }
    chunks[chunks.length - 1]!.push(row);
    bytes += row.bytes.length;
  }
  return chunks;
}

function rowsOf({ ref, data }: Pending, createdAt: Date): CopyRow[] {
  const rows: CopyRow[] = [];
  for (let part = 0, at = 0; at < data.length || part === 0; part++, at += PART_BYTES)
    rows.push({
      segment: ref.segment,
      offset: ref.offset,
      part,
      length: ref.length,
      bytes: data.subarray(at, at + PART_BYTES),
      created_at: createdAt,
    });
  return rows;
}
