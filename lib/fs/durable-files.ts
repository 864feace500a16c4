import { open, rename } from 'node:fs/promises';

/**
 * fsyncs a file or directory by path: a directory's fsync makes the files created or renamed in
 * it survive a power cut.
 */
export async function fsyncPath(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Writes `bytes` to `temp` (mode 0640), fsyncs it and renames it to `final`: readers see the old
 * file or the whole new one, never a part. The rename is durable once the caller fsyncs the
 * directory (callers that write many files share that one fsync).
 */
export async function writeAndRename(temp: string, final: string, bytes: Buffer | string): Promise<void> {
  const handle = await open(temp, 'w', 0o640);
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temp, final);
}
