import type { FileHandle } from 'node:fs/promises';

type Pending = { data: Buffer; offset: number; resolve: () => void; reject: (err: unknown) => void };

/**
 * Positional writes to one file, gathered: writes asked for while one is in flight go out
 * together in the next writev, so concurrent appends cost one trip to the thread pool instead
 * of one each. Appends reserve consecutive ranges, so a batch is normally one contiguous run.
 */
export class CoalescedWrites {
  private pending: Pending[] = [];
  private writing = false;

  constructor(private readonly handle: FileHandle) {}

  write(data: Buffer, offset: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ data, offset, resolve, reject });
      if (!this.writing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.writing = true;
    try {
      while (this.pending.length > 0) {
        for (const run of contiguousRuns(this.pending.splice(0))) {
          try {
            await writeFully(
              this.handle,
              run.map((p) => p.data),
              run[0]!.offset,
            );
            for (const p of run) p.resolve();
          } catch (err) {
            for (const p of run) p.reject(err);
          }
        }
      }
    } finally {
      this.writing = false;
    }
  }
}

function contiguousRuns(batch: Pending[]): Pending[][] {
  const runs: Pending[][] = [];
  for (const p of [...batch].sort((a, b) => a.offset - b.offset)) {
    const run = runs.at(-1);
    const last = run?.at(-1);
    if (run && last && last.offset + last.data.length === p.offset) run.push(p);
    else runs.push([p]);
  }
  return runs;
}

/** One writev; should it write short (rare on regular files, but allowed), the rest follows. */
async function writeFully(handle: FileHandle, buffers: Buffer[], offset: number): Promise<void> {
  const total = buffers.reduce((sum, b) => sum + b.length, 0);
  const { bytesWritten } = await handle.writev(buffers, offset);
  let rest = bytesWritten < total ? Buffer.concat(buffers).subarray(bytesWritten) : Buffer.alloc(0);
  let position = offset + bytesWritten;
  while (rest.length > 0) {
    const written = (await handle.write(rest, 0, rest.length, position)).bytesWritten;
    rest = rest.subarray(written);
    position += written;
  }
}
