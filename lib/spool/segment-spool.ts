import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, stat, unlink, type FileHandle } from 'node:fs/promises';
import { readAt, ReadHandles } from './read-handles.js';
import { join } from 'node:path';
import { CoalescedSync } from './coalesced-sync.js';
import { CoalescedWrites } from './coalesced-writes.js';

const SEGMENT_NAME = /^seg-[A-Za-z0-9-]+\.spool$/;

export type SpoolRef = { segment: string; offset: number; length: number };

/** `writers`: appends reserved on it and not yet synced; a retired segment closes at zero. */
type Segment = {
  name: string;
  handle: FileHandle;
  size: number;
  writes: CoalescedWrites;
  sync: CoalescedSync;
  writers: number;
  retired: boolean;
};

/**
 * The message spool: records appended to segment files, each process writing its own segment.
 * An append returns once its bytes are fsynced; concurrent appends share writes and fsyncs, so
 * accepting many messages at once costs a few disk flushes instead of several per message. Records are
 * addressed by (segment, offset, length), which the database row keeps.
 */
export class SegmentSpool {
  private segment: Segment | undefined;
  private opening: Promise<Segment> | undefined;
  private readonly dirSync: CoalescedSync;
  private readonly readers: ReadHandles;

  constructor(
    private readonly dir: string,
    private readonly maxSegmentBytes = 256 * 1024 * 1024,
  ) {
    this.readers = new ReadHandles(dir);
    this.dirSync = new CoalescedSync(async () => {
      const handle = await open(this.dir, 'r');
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
    });
  }

  async append(data: Buffer): Promise<SpoolRef> {
    let segment = await this.currentSegment();
    while (segment.size > 0 && segment.size + data.length > this.maxSegmentBytes) segment = await this.rotate(segment);
    // Reserve the range synchronously: concurrent appends never overlap.
    const offset = segment.size;
    segment.size += data.length;
    segment.writers++;
    try {
      await segment.writes.write(data, offset);
      await segment.sync.request();
    } finally {
      segment.writers--;
      if (segment.retired && segment.writers === 0) void segment.handle.close().catch(() => undefined);
    }
    return { segment: segment.name, offset, length: data.length };
  }

  /**
   * One record, or null when its segment is gone or shorter than the reference. Segments are
   * read through descriptors kept open for a while (see ReadHandles): the MTA reads every
   * message it sends, and opening and closing the file each time cost more than the read.
   */
  async read(ref: SpoolRef): Promise<Buffer | null> {
    if (!SEGMENT_NAME.test(ref.segment)) return null;
    const fd = await this.readers.acquire(ref.segment);
    if (fd === null) return null;
    try {
      const buffer = Buffer.allocUnsafe(ref.length);
      const bytesRead = await readAt(fd, buffer, ref.offset);
      return bytesRead === ref.length ? buffer : null;
    } finally {
      this.readers.release(ref.segment);
    }
  }

  /**
   * Deletes segments no record is referenced in any more. Only segments untouched for
   * `minAgeMs` are considered, so a segment another process is still appending to is safe.
   */
  async sweep(
    isReferenced: (segment: string) => Promise<boolean>,
    minAgeMs: number,
    now = Date.now(),
  ): Promise<string[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const removed: string[] = [];
    for (const name of names.filter((n) => SEGMENT_NAME.test(n))) {
      if (name === this.segment?.name) continue;
      const info = await stat(join(this.dir, name)).catch(() => undefined);
      if (!info || now - info.mtimeMs < minAgeMs) continue;
      if (await isReferenced(name)) continue;
      await unlink(join(this.dir, name)).catch(() => undefined);
      this.readers.forget(name);
      removed.push(name);
    }
    return removed;
  }

  async close(): Promise<void> {
    this.readers.closeAll();
    const segment = this.segment;
    this.segment = undefined;
    if (segment) await segment.handle.close();
  }

  private currentSegment(): Promise<Segment> {
    if (this.segment) return Promise.resolve(this.segment);
    this.opening ??= this.openSegment().finally(() => (this.opening = undefined));
    return this.opening;
  }

  private async rotate(full: Segment): Promise<Segment> {
    if (this.segment === full) {
      this.segment = undefined;
      // Writers still finishing on the old segment keep it open; the last one closes it.
      full.retired = true;
      if (full.writers === 0) void full.handle.close().catch(() => undefined);
    }
    return this.currentSegment();
  }

  /** A new segment file, its directory entry fsynced before any record in it is acknowledged. */
  private async openSegment(): Promise<Segment> {
    await mkdir(this.dir, { recursive: true });
    const name = `seg-${Date.now()}-${process.pid}-${randomBytes(4).toString('hex')}.spool`;
    const handle = await open(join(this.dir, name), 'wx', 0o640);
    await this.dirSync.request();
    const segment: Segment = {
      name,
      handle,
      size: 0,
      writes: new CoalescedWrites(handle),
      sync: new CoalescedSync(() => handle.datasync()),
      writers: 0,
      retired: false,
    };
    this.segment = segment;
    return segment;
  }
}
