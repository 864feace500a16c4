import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readdir } from 'node:fs/promises';
import { dirname } from 'node:path';

/** Progress of a long copy, for the command to show on stderr. */
export type BackupProgress =
  | { phase: 'database'; message: string }
  | { phase: 'files'; filesDone: number; filesTotal: number; bytesDone: number; bytesTotal: number };
export type ProgressListener = (progress: BackupProgress) => void;

const CHUNK = 1024 * 1024;

/**
 * Copies the first `size` bytes of `source` (default: its size when opened) to a new file,
 * hashing them on the way, and fsyncs the copy. A spool segment may grow while it is copied:
 * bytes appended after the open belong to records no earlier database snapshot refers to.
 * Null when the source is gone (a blob deleted by retention since the listing).
 */
export async function copyHashed(
  source: string,
  destination: string,
  options: { mode?: number; size?: number; onBytes?: (bytes: number) => void } = {},
): Promise<{ size: number; sha256: string } | null> {
  let input;
  try {
    input = await open(source, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  try {
    const size = options.size ?? (await input.stat()).size;
    await mkdir(dirname(destination), { recursive: true });
    const output = await open(destination, 'wx', options.mode ?? 0o640);
    const hash = createHash('sha256');
    try {
      const buffer = Buffer.allocUnsafe(Math.min(CHUNK, Math.max(size, 1)));
      let position = 0;
      while (position < size) {
        const { bytesRead } = await input.read(buffer, 0, Math.min(buffer.length, size - position), position);
        if (bytesRead === 0) throw new Error(`${source} ended at ${position} bytes while ${size} were being copied`);
        const chunk = buffer.subarray(0, bytesRead);
        hash.update(chunk);
        await output.write(chunk, 0, bytesRead, position);
        position += bytesRead;
        options.onBytes?.(bytesRead);
      }
      await output.sync();
    } finally {
      await output.close();
    }
    return { size, sha256: hash.digest('hex') };
  } finally {
    await input.close();
  }
}

/** The entries of a directory, none when it does not exist. */
export async function listDirectory(dir: string): Promise<Array<{ name: string; isFile: boolean; isDir: boolean }>> {
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    return entries
      .map((entry) => ({ name: entry.name, isFile: entry.isFile(), isDir: entry.isDirectory() }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

/** Counts bytes and files copied and reports them at most every `intervalMs` (and at the end). */
export class CopyProgress {
  private filesDone = 0;
  private bytesDone = 0;
  private lastReport = 0;

  constructor(
    private readonly filesTotal: number,
    private readonly bytesTotal: number,
    private readonly listener: ProgressListener | undefined,
    private readonly intervalMs = 1000,
  ) {}

  bytes(count: number): void {
    this.bytesDone += count;
    this.maybeReport();
  }

  fileDone(): void {
    this.filesDone++;
    this.maybeReport();
  }

  finish(): void {
    this.report();
  }

  private maybeReport(): void {
    if (Date.now() - this.lastReport >= this.intervalMs) this.report();
  }

  private report(): void {
    this.lastReport = Date.now();
    this.listener?.({
      phase: 'files',
      filesDone: this.filesDone,
      filesTotal: this.filesTotal,
      bytesDone: this.bytesDone,
      bytesTotal: this.bytesTotal,
    });
  }
}

/** Size and SHA-256 of a file. */
export async function hashFile(path: string): Promise<{ size: number; sha256: string }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of createReadStream(path)) {
    hash.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { size, sha256: hash.digest('hex') };
}
