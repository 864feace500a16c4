import { close, open, read } from 'node:fs';
import { join } from 'node:path';

/** Descriptors idle longer than this are closed (a swept segment's space is then freed too). */
const IDLE_MS = 30_000;
/** Segments kept open at most; the least recently used idle one goes first. */
const MAX_OPEN = 16;

type Entry = { fd: Promise<number | null>; users: number; lastUsed: number };

/** pread into `buffer` at `position`: one thread-pool request, no FileHandle bookkeeping. */
export function readAt(fd: number, buffer: Buffer, position: number): Promise<number> {
  return new Promise((resolve, reject) =>
    read(fd, buffer, 0, buffer.length, position, (err, bytesRead) => (err ? reject(err) : resolve(bytesRead))),
  );
}

const openForReading = (path: string) =>
  new Promise<number | null>((resolve, reject) =>
    open(path, 'r', (err, fd) => {
      if (!err) return resolve(fd);
      if (err.code === 'ENOENT') return resolve(null);
      reject(err);
    }),
  );

/**
 * Read-only descriptors of spool segments, shared by concurrent reads and kept open while in
 * use and for a short while after. Segment files are append-only and never rewritten in place,
 * so a descriptor stays valid for every record; a segment that does not exist (yet) is not
 * remembered, so a record appended later by another process is found on the next read.
 */
export class ReadHandles {
  private readonly entries = new Map<string, Entry>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly dir: string) {}

  /** The segment's descriptor (null: no such segment); pair with release(). */
  async acquire(segment: string): Promise<number | null> {
    let entry = this.entries.get(segment);
    if (!entry) {
      entry = { fd: openForReading(join(this.dir, segment)), users: 0, lastUsed: Date.now() };
      this.entries.set(segment, entry);
    }
    entry.users++;
    this.trim();
    let fd: number | null;
    try {
      fd = await entry.fd;
    } catch (err) {
      this.drop(segment, entry);
      throw err;
    }
    if (fd === null) this.drop(segment, entry);
    return fd;
  }

  release(segment: string): void {
    const entry = this.entries.get(segment);
    if (!entry) return;
    entry.users--;
    entry.lastUsed = Date.now();
    this.timer ??= setTimeout(() => this.closeIdle(), IDLE_MS).unref();
  }

  /** The segment was deleted: close its descriptor once no read uses it. */
  forget(segment: string): void {
    const entry = this.entries.get(segment);
    if (entry && entry.users === 0) this.drop(segment, entry);
  }

  closeAll(): void {
    for (const [segment, entry] of this.entries) if (entry.users === 0) this.drop(segment, entry);
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private closeIdle(): void {
    this.timer = undefined;
    const now = Date.now();
    for (const [segment, entry] of this.entries)
      if (entry.users === 0 && now - entry.lastUsed >= IDLE_MS) this.drop(segment, entry);
    if (this.entries.size > 0) this.timer = setTimeout(() => this.closeIdle(), IDLE_MS).unref();
  }

  /** Over MAX_OPEN: close the least recently used idle ones. */
  private trim(): void {
    if (this.entries.size <= MAX_OPEN) return;
    const idle = [...this.entries].filter(([, e]) => e.users === 0).sort((a, b) => a[1].lastUsed - b[1].lastUsed);
    for (const [segment, entry] of idle.slice(0, this.entries.size - MAX_OPEN)) this.drop(segment, entry);
  }

  private drop(segment: string, entry: Entry): void {
    if (this.entries.get(segment) === entry) this.entries.delete(segment);
    void entry.fd.then(
      (fd) => fd !== null && close(fd, () => undefined),
      () => undefined,
    );
  }
}
