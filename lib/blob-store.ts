import { randomBytes } from 'node:crypto';
import { mkdir, readFile, unlink } from 'node:fs/promises';
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
