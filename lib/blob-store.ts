import { randomBytes } from 'node:crypto';
import type { ReadStream } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { fsyncPath, writeAndRename } from './fs/durable-files.js';
import { CoalescedSync } from './spool/coalesced-sync.js';

/**
 * Content that does not belong in hot tables (message bodies, attachments, uploads) lives here,
 * on the filesystem under dataDir. A put returns only after the bytes and the directory entry
 * are fsynced, so an acknowledged write survives a power cut.
 */
export class FileBlobStore {
  /** Per directory, one coalesced fsync: concurrent puts share it. */
  private readonly dirSyncs = new Map<string, CoalescedSync>();

  constructor(private readonly root: string) {}

  private pathOf(namespace: string, name: string): string {
    if (!/^[a-z0-9-]+$/.test(namespace) || !/^[A-Za-z0-9._-]+$/.test(name) || name.startsWith('.')) {
      throw new Error(`invalid blob name ${namespace}/${name}`);
    }
    return join(this.root, namespace, name);
  }

  async put(namespace: string, name: string, bytes: Buffer): Promise<void> {
    const dir = join(this.root, namespace);
    await mkdir(dir, { recursive: true });
    const final = this.pathOf(namespace, name);
    const temp = `${final}.${randomBytes(6).toString('hex')}.tmp`;
    await writeAndRename(temp, final, bytes);
    await this.syncDirectory(dir);
  }

  /** The rename is durable once the directory is fsynced; concurrent puts share the fsync. */
  private syncDirectory(dir: string): Promise<void> {
    let sync = this.dirSyncs.get(dir);
    if (!sync) {
      sync = new CoalescedSync(() => fsyncPath(dir));
      this.dirSyncs.set(dir, sync);
    }
    return sync.request();
  }

  /**
   * Where uploads are streamed while a request comes in: under the root, so adopting one as a
   * blob is a rename on the same filesystem. Their names end in `.tmp` (backups skip them).
   */
  get incomingDirectory(): string {
    return join(this.root, 'incoming');
  }

  /** Makes the file at `path` (in incomingDirectory) the blob `namespace/name`, durably. */
  async adopt(namespace: string, name: string, path: string): Promise<void> {
    const dir = join(this.root, namespace);
    await mkdir(dir, { recursive: true });
    await fsyncPath(path);
    await rename(path, this.pathOf(namespace, name));
    await this.syncDirectory(dir);
  }

  /** The blob's bytes as a stream (never read whole), or null when there is no such blob. */
  async openRead(namespace: string, name: string, start = 0): Promise<ReadStream | null> {
    try {
      return (await open(this.pathOf(namespace, name), 'r')).createReadStream({ start });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  /** Removes uploads left in incomingDirectory by requests that died before finishing; returns how many. */
  async removeStaleIncoming(olderThan: Date): Promise<number> {
    const names = await readdir(this.incomingDirectory).catch(() => [] as string[]);
    let removed = 0;
    for (const name of names) {
      const path = join(this.incomingDirectory, name);
      const info = await stat(path).catch(() => undefined);
      if (!info?.isFile() || info.mtime >= olderThan) continue;
      await unlink(path).catch(() => undefined);
      removed++;
    }
    return removed;
  }

  async get(namespace: string, name: string): Promise<Buffer | null> {
    try {
      return await readFile(this.pathOf(namespace, name));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  /** Readiness: the data directory accepts writes. */
  /** Removes a blob; one already gone is fine (retention may run twice). */
  async delete(namespace: string, name: string): Promise<void> {
    try {
      await unlink(this.pathOf(namespace, name));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }

  async checkWritable(): Promise<void> {
    await this.put('health', 'probe', Buffer.from(String(Date.now())));
  }
}
